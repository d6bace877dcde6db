// The application's dlmopen (see dlmopen_tracking.cpp): note the request, then tail-jump to
// glibc's dlmopen with the stack exactly as the caller left it, for the reason dlopen's stub gives
// (dlopen_stub_x86_64.S): glibc takes its return address as the caller, whose RUNPATH it searches.
    .text
    .globl  dlmopen
    .type   dlmopen, @function
    .p2align 4
dlmopen:
    .cfi_startproc
    endbr64
    push    %rdi                    // the arguments (namespace, name, mode) survive the note;
    .cfi_adjust_cfa_offset 8
    push    %rsi                    // three pushes leave the stack 16-byte aligned at the call
    .cfi_adjust_cfa_offset 8
    push    %rdx
    .cfi_adjust_cfa_offset 8
    call    yk_note_dlmopen
    pop     %rdx
    .cfi_adjust_cfa_offset -8
    pop     %rsi
    .cfi_adjust_cfa_offset -8
    pop     %rdi
    .cfi_adjust_cfa_offset -8
    jmp     *yk_real_dlmopen(%rip)
    .cfi_endproc
    .size   dlmopen, .-dlmopen

    .section .note.GNU-stack,"",@progbits
