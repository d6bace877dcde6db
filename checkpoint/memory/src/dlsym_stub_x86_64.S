// The application's dlsym and dlvsym (see dl_handles.cpp): the handle is translated (an old
// link_map after a restore becomes the live one), then a tail-jump to glibc's with the caller's
// return address untouched. glibc takes the caller's address for RTLD_NEXT and RTLD_DEFAULT, so a
// wrapper that called the real one would look symbols up from the shim instead.
    .text
    .globl  dlsym
    .type   dlsym, @function
    .p2align 4
dlsym:
    .cfi_startproc
    endbr64
    push    %rdi                    // the arguments survive the translation
    .cfi_adjust_cfa_offset 8
    push    %rsi
    .cfi_adjust_cfa_offset 8
    sub     $8, %rsp                // 16-byte alignment at the call
    .cfi_adjust_cfa_offset 8
    call    yk_translate_dl_handle  // rdi: the handle; returns the one to use
    add     $8, %rsp
    .cfi_adjust_cfa_offset -8
    pop     %rsi
    .cfi_adjust_cfa_offset -8
    add     $8, %rsp                // the old handle
    .cfi_adjust_cfa_offset -8
    mov     %rax, %rdi
    jmp     *yk_real_dlsym(%rip)
    .cfi_endproc
    .size   dlsym, .-dlsym

    .globl  dlvsym
    .type   dlvsym, @function
    .p2align 4
dlvsym:
    .cfi_startproc
    endbr64
    push    %rdi                    // the arguments survive the translation
    .cfi_adjust_cfa_offset 8
    push    %rsi
    .cfi_adjust_cfa_offset 8
    push    %rdx                    // the version; also keeps the call 16-byte aligned
    .cfi_adjust_cfa_offset 8
    call    yk_translate_dl_handle
    pop     %rdx
    .cfi_adjust_cfa_offset -8
    pop     %rsi
    .cfi_adjust_cfa_offset -8
    add     $8, %rsp                // the old handle
    .cfi_adjust_cfa_offset -8
    mov     %rax, %rdi
    jmp     *yk_real_dlvsym(%rip)
    .cfi_endproc
    .size   dlvsym, .-dlvsym

    .section .note.GNU-stack,"",@progbits
