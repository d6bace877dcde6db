/* Register save/resume and stack switches for x86-64 SysV (see context.hpp). */

    .text

/* int yk_ctx_save(Context* ctx) */
    .globl yk_ctx_save
    .hidden yk_ctx_save
    .type yk_ctx_save,@function
yk_ctx_save:
    .cfi_startproc
    movq %rbx, 0(%rdi)
    movq %rbp, 8(%rdi)
    movq %r12, 16(%rdi)
    movq %r13, 24(%rdi)
    movq %r14, 32(%rdi)
    movq %r15, 40(%rdi)
    leaq 8(%rsp), %rdx
    movq %rdx, 48(%rdi)
    movq (%rsp), %rdx
    movq %rdx, 56(%rdi)
    stmxcsr 64(%rdi)
    fnstcw 68(%rdi)
    xorl %eax, %eax
    ret
    .cfi_endproc
    .size yk_ctx_save, .-yk_ctx_save

/* void yk_ctx_resume(const Context* ctx, uint64_t canary) */
    .globl yk_ctx_resume
    .hidden yk_ctx_resume
    .type yk_ctx_resume,@function
yk_ctx_resume:
    .cfi_startproc
    movq %rsi, %fs:0x28
    ldmxcsr 64(%rdi)
    fldcw 68(%rdi)
    movq 0(%rdi), %rbx
    movq 8(%rdi), %rbp
    movq 16(%rdi), %r12
    movq 24(%rdi), %r13
    movq 32(%rdi), %r14
    movq 40(%rdi), %r15
    movq 48(%rdi), %rsp
    movl $1, %eax
    jmpq *56(%rdi)
    .cfi_endproc
    .size yk_ctx_resume, .-yk_ctx_resume

/* int yk_run_on_stack(void* top, int (*fn)(int, char**, char**), int a, char** b, char** c) */
    .globl yk_run_on_stack
    .hidden yk_run_on_stack
    .type yk_run_on_stack,@function
yk_run_on_stack:
    .cfi_startproc
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, yk_os_stack_sp(%rip)
    movq %rdi, %rsp
    movq %rsi, %rax
    movl %edx, %edi
    movq %rcx, %rsi
    movq %r8, %rdx
    call *%rax
    movq yk_os_stack_sp(%rip), %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .cfi_endproc
    .size yk_run_on_stack, .-yk_run_on_stack

/* void yk_jump_to_stack(void* top, void (*fn)(void*), void* arg) */
    .globl yk_jump_to_stack
    .hidden yk_jump_to_stack
    .type yk_jump_to_stack,@function
yk_jump_to_stack:
    .cfi_startproc
    movq %rdi, %rsp
    movq %rdx, %rdi
    call *%rsi
    ud2
    .cfi_endproc
    .size yk_jump_to_stack, .-yk_jump_to_stack

/* void* yk_call_recording_sp(void* (*fn)(void*), void* arg, uint64_t* sp) */
    .globl yk_call_recording_sp
    .hidden yk_call_recording_sp
    .type yk_call_recording_sp,@function
yk_call_recording_sp:
    .cfi_startproc
    pushq %rbx
    .cfi_def_cfa_offset 16
    movq %rsp, (%rdx)
    movq %rdi, %rax
    movq %rsi, %rdi
    call *%rax
    popq %rbx
    .cfi_def_cfa_offset 8
    ret
    .cfi_endproc
    .size yk_call_recording_sp, .-yk_call_recording_sp

/* uint64_t yk_read_canary(void) */
    .globl yk_read_canary
    .hidden yk_read_canary
    .type yk_read_canary,@function
yk_read_canary:
    .cfi_startproc
    movq %fs:0x28, %rax
    ret
    .cfi_endproc
    .size yk_read_canary, .-yk_read_canary

    .bss
    .balign 8
yk_os_stack_sp:
    .zero 8

    .section .note.GNU-stack,"",@progbits
