/* test_crash.c — a crash prints where it happened. Lent GPU machines have no
 * debugger, so a test that dies there prints the faulting address and the
 * stack, module(+offset) per frame, to match against this build's binaries
 * with addr2line (the bundle's binaries are these, stripped). The handler
 * runs on its own stack, so a stack overflow prints too. */
#define _GNU_SOURCE
#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void test_catch_crashes(void);

static void crashed(int sig, siginfo_t *si, void *ctx)
{
    (void)ctx;
    void *pc[64];
    char head[160];
    int n = snprintf(head, sizeof head, "test: signal %d at address %p; stack (addr2line -f -e BINARY OFFSET):\n", sig,
                     si->si_addr);
    if (write(2, head, (size_t)n) < 0) {}
    backtrace_symbols_fd(pc, backtrace(pc, 64), 2);
    signal(sig, SIG_DFL);
    raise(sig);
}

void test_catch_crashes(void)
{
    static char alt[1 << 16];
    stack_t ss = { .ss_sp = alt, .ss_size = sizeof alt, .ss_flags = 0 };
    sigaltstack(&ss, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = crashed;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    int sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE };
    for (int i = 0; i < 4; i++) sigaction(sigs[i], &sa, NULL);
}
