/* test.h — a tiny assertion kit for hdgc's C unit tests.
 *   CHECK(cond, "fmt", ...)        records a failure with file:line and message
 *   CHECK_NEAR(a, b, tol, "what")  |a - b| <= tol (NaN fails)
 *   return test_summary("name");  prints the count and returns the exit code */
#ifndef HDG_TEST_H
#define HDG_TEST_H

#include <math.h>
#include <stdio.h>

static int test_failures, test_checks;

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        test_checks++;                                                          \
        if (!(cond)) {                                                          \
            test_failures++;                                                    \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                       \
            fputc('\n', stderr);                                                \
        }                                                                       \
    } while (0)

#define CHECK_NEAR(a, b, tol, what)                                             \
    do {                                                                        \
        double a_ = (a), b_ = (b), t_ = (tol);                                  \
        CHECK(fabs(a_ - b_) <= t_, "%s: %.17g vs %.17g (diff %.3g > %.3g)",     \
              (what), a_, b_, fabs(a_ - b_), t_);                              \
    } while (0)

static inline int test_summary(const char *name)
{
    if (test_failures)
        fprintf(stderr, "%s: %d of %d checks FAILED\n", name, test_failures, test_checks);
    else
        printf("%s: all %d checks passed\n", name, test_checks);
    return test_failures ? 1 : 0;
}

#endif
