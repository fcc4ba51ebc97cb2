/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Small helpers shared by every layer: cleanup attributes, ownership transfer, array sizes. */
#pragma once

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _unused_ __attribute__((unused))
#define _pure_ __attribute__((pure))
#define _const_ __attribute__((const))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _warn_unused_result_ __attribute__((warn_unused_result))
#define _likely_(x) (__builtin_expect(!!(x), 1))
#define _unlikely_(x) (__builtin_expect(!!(x), 0))

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))

#define DF_CONCAT_(a, b) a##b
#define DF_CONCAT(a, b) DF_CONCAT_(a, b)
#define DF_UNIQ(name) DF_CONCAT(name, __COUNTER__)

/* Each expansion gets its own temporaries, so MIN(MIN(a, b), c) does not shadow. */
#define DF_MIN_(a, b, ua, ub)                                                                                \
        __extension__({                                                                                      \
                __typeof__(a) ua = (a);                                                                      \
                __typeof__(b) ub = (b);                                                                      \
                ua < ub ? ua : ub;                                                                           \
        })
#define DF_MAX_(a, b, ua, ub)                                                                                \
        __extension__({                                                                                      \
                __typeof__(a) ua = (a);                                                                      \
                __typeof__(b) ub = (b);                                                                      \
                ua > ub ? ua : ub;                                                                           \
        })
#define MIN(a, b) DF_MIN_(a, b, DF_UNIQ(_min_a_), DF_UNIQ(_min_b_))
#define MAX(a, b) DF_MAX_(a, b, DF_UNIQ(_max_a_), DF_UNIQ(_max_b_))

/* Hand a pointer (or fd) over to a new owner, leaving the old variable empty for its cleanup. */
#define TAKE_GENERIC(var, type, nullvalue)                                                                   \
        __extension__({                                                                                      \
                type *_pvar_ = &(var);                                                                       \
                type _var_ = *_pvar_;                                                                        \
                type _nullvalue_ = nullvalue;                                                                \
                *_pvar_ = _nullvalue_;                                                                       \
                _var_;                                                                                       \
        })
#define TAKE_PTR(ptr) TAKE_GENERIC(ptr, __typeof__(ptr), NULL)
#define TAKE_FD(fd) TAKE_GENERIC(fd, int, -EBADF)

static inline void freep(void *p) {
        free(*(void **) p);
}
#define _cleanup_free_ _cleanup_(freep)

static inline int safe_close(int fd) {
        if (fd >= 0) {
                int saved = errno;
                (void) close(fd);
                errno = saved;
        }
        return -EBADF;
}
static inline void closep(int *fd) {
        safe_close(*fd);
}
#define _cleanup_close_ _cleanup_(closep)

static inline void closedirp(DIR **d) {
        if (*d)
                closedir(*d);
}

/* Define a cleanup helper for a type with a free function: DEFINE_TRIVIAL_CLEANUP_FUNC(struct x *, x_free). */
#define DEFINE_TRIVIAL_CLEANUP_FUNC(type, func)                                                              \
        static inline void func##p(type *p) {                                                                \
                if (*p)                                                                                      \
                        func(*p);                                                                            \
        }

static inline const char *strempty(const char *s) {
        return s ? s : "";
}

static inline const char *strna(const char *s) {
        return s ? s : "n/a";
}

static inline const char *yes_no(int b) {
        return b ? "yes" : "no";
}

#define streq(a, b) (strcmp((a), (b)) == 0)
#define strneq(a, b, n) (strncmp((a), (b), (n)) == 0)

/* Equal strings, or both NULL. */
static inline bool streq_ptr(const char *a, const char *b) {
        return a && b ? streq(a, b) : a == b;
}

#define SWAP_PTR(a, b)                                                                                       \
        do {                                                                                                 \
                __typeof__(a) _swap_tmp_ = (a);                                                              \
                (a) = (b);                                                                                   \
                (b) = _swap_tmp_;                                                                            \
        } while (0)

/*
 * The names of an enumeration, kept once in a table: defines NAME_to_string() (NULL out of range)
 * and NAME_from_string() (`invalid` for an unknown name or NULL), as logind's string tables do.
 */
#define DEFINE_STRING_TABLE(name, type, table, max, invalid)                                                 \
        const char *name##_to_string(type v) {                                                               \
                return (int) v < 0 || (int) v >= (max) ? NULL : (table)[v];                                  \
        }                                                                                                    \
        type name##_from_string(const char *s) {                                                             \
                for (int i = 0; s && i < (max); i++)                                                         \
                        if ((table)[i] && streq((table)[i], s))                                              \
                                return (type) i;                                                             \
                return (invalid);                                                                            \
        }

/* Grow a heap array by one zeroed element and point at it; NULL on failure (the array is unchanged). */
#define GROW(array, n)                                                                                       \
        __extension__({                                                                                      \
                __typeof__(array) _a = reallocarray((array), (n) + 1, sizeof(*(array)));                     \
                if (_a) {                                                                                    \
                        (array) = _a;                                                                        \
                        memset(&_a[n], 0, sizeof(*_a));                                                      \
                }                                                                                            \
                _a ? &_a[n] : NULL;                                                                          \
        })

/* Make room for `need` elements in an array whose capacity `allocated` tracks, doubling it (at least
 * 8): for arrays that grow often (heaps, tables, queues). 0, or -ENOMEM with both unchanged. */
static inline size_t df_greedy_size(size_t allocated, size_t need) {
        size_t a = need > allocated * 2 ? need : allocated * 2;
        return a < 8 ? 8 : a;
}
#define GREEDY_GROW(array, allocated, need)                                                                  \
        __extension__({                                                                                      \
                int _r = 0;                                                                                  \
                if ((need) > (allocated)) {                                                                  \
                        size_t _n = df_greedy_size((allocated), (need));                                     \
                        __typeof__(array) _p = reallocarray((array), _n, sizeof(*(array)));                  \
                        if (_p) {                                                                            \
                                (array) = _p;                                                                \
                                (allocated) = _n;                                                            \
                        } else                                                                               \
                                _r = -ENOMEM;                                                                \
                }                                                                                            \
                _r;                                                                                          \
        })
