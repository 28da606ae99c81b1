/* optimize.c — the pass manager. hdg_ir_optimize verifies the kernel, runs
 * the selected passes in a fixed order (fold, DCE, fuse, unfill, CSE, LICM, CSE again to
 * merge what LICM hoisted from different loops, fold, DCE), and verifies again: a
 * failure after the passes is a bug in a pass and is reported as such. */
#include "ir/ir.h"

hdg_status hdg_ir_optimize(hdg_ir_kernel *k, unsigned flags, hdg_error *err)
{
    hdg_status st = hdg_ir_verify(k, err);
    if (st) return st;
    if (flags & HDG_IR_FOLD) hdg_ir_fold(k, flags);
    if (flags & HDG_IR_DCE) hdg_ir_dce(k);      /* dead lets would count as uses in CSE */
    if (flags & HDG_IR_FUSE) hdg_ir_fuse(k);    /* before CSE: fused bodies share loads */
    if (flags & HDG_IR_UNFILL) hdg_ir_unfill(k);
    if (flags & HDG_IR_CSE) hdg_ir_cse(k);
    if (flags & HDG_IR_LICM) {
        hdg_ir_licm(k);
        if (flags & HDG_IR_CSE) hdg_ir_cse(k);
    }
    if (flags & HDG_IR_FOLD) hdg_ir_fold(k, flags);
    if (flags & HDG_IR_DCE) hdg_ir_dce(k);
    hdg_error e2;
    if (hdg_ir_verify(k, &e2)) return hdg_fail(err, HDG_EINTERNAL, "after optimization: %s", e2.msg);
    return HDG_OK;
}
