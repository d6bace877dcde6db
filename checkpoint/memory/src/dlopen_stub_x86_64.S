// The application's dlopen (see dlopen_tracking.cpp): note the request, then tail-jump to
// glibc's dlopen with the stack exactly as the caller left it. glibc takes the caller's address
// (its own return address) to choose the namespace and the RUNPATH/RPATH to search, so a wrapper
// that called the real dlopen would make every bare name be searched with the shim's paths.
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
    call    yk_note_dlopen
    add     $8, %rsp
    .cfi_adjust_cfa_offset -8
    pop     %rsi
    .cfi_adjust_cfa_offset -8
    pop     %rdi
    .cfi_adjust_cfa_offset -8
    jmp     *yk_real_dlopen(%rip)
    .cfi_endproc
    .size   dlopen, .-dlopen

    .section .note.GNU-stack,"",@progbits
