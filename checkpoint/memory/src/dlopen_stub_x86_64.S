// The application's dlopen (see dlopen_tracking.cpp): note the request, then tail-jump to
// glibc's dlopen with the stack exactly as the caller left it. glibc takes the caller's address
// (its own return address) to choose the namespace and the RUNPATH/RPATH to search, so a wrapper
// that called the real dlopen would make every bare name be searched with the shim's paths.
// A request the note says to steer into the library region (library_region.hpp) tail-jumps to
// yk_steered_dlopen instead, which calls glibc's as the executable would.
    .text
    .globl  dlopen
    .type   dlopen, @function
    .p2align 4
dlopen:
    .cfi_startproc
    endbr64
    push    %rdi                    // the arguments survive the note
    .cfi_adjust_cfa_offset 8
    push    %rsi
    .cfi_adjust_cfa_offset 8
    sub     $8, %rsp                // 16-byte alignment at the call
    .cfi_adjust_cfa_offset 8
    mov     24(%rsp), %rdx          // the caller's return address: who calls
    call    yk_note_dlopen
    add     $8, %rsp
    .cfi_adjust_cfa_offset -8
    pop     %rsi
    .cfi_adjust_cfa_offset -8
    pop     %rdi
    .cfi_adjust_cfa_offset -8
    test    %eax, %eax
    jnz     1f
    jmp     *yk_real_dlopen(%rip)
1:
    jmp     yk_steered_dlopen
    .cfi_endproc
    .size   dlopen, .-dlopen

    .section .note.GNU-stack,"",@progbits
