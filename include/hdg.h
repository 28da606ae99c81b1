/* hdg.h — the public interface of libhdgc shared by every layer.
 *
 * Conventions (all layers):
 *  - functions that can fail return an hdg_status and fill an hdg_error;
 *    the library never calls exit() and never prints on its own;
 *  - names carry the prefix hdg_ (types hdg_xxx, functions hdg_xxx_verb).
 */
#ifndef HDG_H
#define HDG_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stddef.h>

#ifndef HDG_VERSION
#define HDG_VERSION "0.1.0"
#endif

typedef enum hdg_status {
    HDG_OK = 0,
    HDG_EINPUT,     /* bad user input: language file, mesh, option */
    HDG_EIO,        /* file missing, unreadable, unwritable */
    HDG_ENOMEM,     /* allocation failed */
    HDG_ECOMPILE,   /* generated code failed to compile (a compiler bug) */
    HDG_ESOLVER,    /* an iterative solver did not converge, or a blow-up */
    HDG_EDEVICE,    /* GPU / driver / NVRTC trouble */
    HDG_EINTERNAL   /* a broken invariant inside hdgc */
} hdg_status;

typedef struct hdg_error {
    hdg_status code;
    char msg[2048];
} hdg_error;

/* Sets err (when non-NULL) to code and the printf-formatted message; returns code. */
hdg_status hdg_fail(hdg_error *err, hdg_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Clears err to HDG_OK with an empty message. */
void hdg_error_clear(hdg_error *err);

/* Short name of a status code ("input error", "I/O error", ...). */
const char *hdg_status_name(hdg_status code);

#ifdef __cplusplus
}
#endif

#endif
