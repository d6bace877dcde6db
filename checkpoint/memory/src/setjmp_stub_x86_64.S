// The application's setjmp, _setjmp and __sigsetjmp (see jmp_bufs.hpp): note the buffer, then
// tail-jump to glibc's with the stack exactly as the caller left it. glibc saves its caller's
// stack pointer and return address into the buffer, so a wrapper that called the real function
// would save its own frame, gone once it returned.
    .macro NOTED_SETJMP name, real
    .globl  \name
    .type   \name, @function
    .p2align 4
\name:
    .cfi_startproc
    endbr64
    push    %rdi                    // the arguments survive the note
    .cfi_adjust_cfa_offset 8
    push    %rsi
    .cfi_adjust_cfa_offset 8
    sub     $8, %rsp                // 16-byte alignment at the call
    .cfi_adjust_cfa_offset 8
    call    yk_note_jmp_buf         // rdi: the buffer; keeps rbx, rbp, r12-r15 (the ABI's rule)
    add     $8, %rsp
    .cfi_adjust_cfa_offset -8
    pop     %rsi
    .cfi_adjust_cfa_offset -8
    pop     %rdi
    .cfi_adjust_cfa_offset -8
    jmp     *\real(%rip)
    .cfi_endproc
    .size   \name, .-\name
    .endm

    .text
    NOTED_SETJMP setjmp, yk_real_setjmp
    NOTED_SETJMP _setjmp, yk_real__setjmp
    NOTED_SETJMP __sigsetjmp, yk_real_sigsetjmp

    .section .note.GNU-stack,"",@progbits
