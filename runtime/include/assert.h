/* assert.h for the simulated EM-X: a failed assertion prints where and calls abort(). */
#ifndef EMX_ASSERT_H
#define EMX_ASSERT_H

void emx_assert_fail(const char *expr, const char *file, int line, const char *func)
    __attribute__((noreturn));

#endif

#undef assert
#ifdef NDEBUG
#define assert(e) ((void)0)
#else
#define assert(e) ((e) ? (void)0 : emx_assert_fail(#e, __FILE__, __LINE__, __func__))
#endif
