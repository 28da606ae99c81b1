"""ctypes declarations of libhdgc's public C API (include/hdgc.h) and the library lookup.

The library is looked for, in order: libhdgc.so beside this package (the one `pip install .`
bundles); $HDGC_LIBRARY; or, when that is not set, the checkout's build/libhdgc.so (only when
this package is python/hdgc of a checkout) and ctypes.util.find_library("hdgc").
"""
import ctypes
import ctypes.util
import os
from ctypes import (CFUNCTYPE, POINTER, Structure, c_char, c_char_p, c_double, c_int,
                    c_longlong, c_void_p)

HDG_OK, HDG_EINPUT, HDG_EIO, HDG_ENOMEM, HDG_ECOMPILE, HDG_ESOLVER, HDG_EDEVICE, HDG_EINTERNAL = range(8)

hdg_status = c_int


class hdg_error(Structure):
    _fields_ = [("code", hdg_status), ("msg", c_char * 2048)]


class hdgc_problem(Structure):   # opaque
    _fields_ = []


class hdgc_result(Structure):    # opaque
    _fields_ = []


class hdgc_mesh(Structure):      # opaque
    _fields_ = []


class hdgc_report(Structure):    # opaque
    _fields_ = []


class hdgc_plot_series(Structure):
    _fields_ = [("label", c_char_p), ("n", c_int), ("x", POINTER(c_double)), ("y", POINTER(c_double)),
                ("colour", c_int), ("marker", c_int)]


class hdgc_plot(Structure):
    _fields_ = [("width", c_int), ("height", c_int), ("title", c_char_p), ("xlabel", c_char_p),
                ("ylabel", c_char_p), ("nseries", c_int), ("series", POINTER(hdgc_plot_series)), ("fits", c_int)]


class hdgc_lattice_fields(Structure):
    _fields_ = [("dim", c_int), ("ne", c_int), ("vertices", POINTER(c_double)), ("degree", c_int),
                ("nfields", c_int), ("names", POINTER(c_char_p)), ("ncomp", POINTER(c_int)),
                ("values", POINTER(POINTER(c_double))), ("ncells", c_int), ("cell_names", POINTER(c_char_p)),
                ("cell_values", POINTER(POINTER(c_double)))]


class hdgc_png_options(Structure):
    _fields_ = [("width", c_int), ("height", c_int), ("edges", c_int), ("slice", c_char_p), ("caption", c_char_p)]


class hdgc_field(Structure):
    _fields_ = [("name", c_char_p), ("ne", c_int), ("npe", c_int), ("degree", c_int),
                ("x", POINTER(c_double)), ("y", POINTER(c_double)), ("values", POINTER(c_double)),
                ("z", POINTER(c_double))]   # tetrahedra (NULL on triangles)


class hdgc_state(Structure):
    _fields_ = [("step", c_longlong), ("t", c_double), ("final", c_int), ("nfields", c_int),
                ("fields", POINTER(hdgc_field))]


hdgc_step_fn = CFUNCTYPE(c_int, c_void_p, POINTER(hdgc_state))

P_problem, P_result, P_error = POINTER(hdgc_problem), POINTER(hdgc_result), POINTER(hdg_error)
P_mesh, P_report = POINTER(hdgc_mesh), POINTER(hdgc_report)

# name: (restype, argtypes) for every function of include/hdgc.h and the hdg.h ones exported
SIGNATURES = {
    "hdgc_problem_load": (hdg_status, [c_char_p, POINTER(P_problem), P_error]),
    "hdgc_problem_parse": (hdg_status, [c_char_p, c_char_p, POINTER(P_problem), P_error]),
    "hdgc_problem_free": (None, [P_problem]),
    "hdgc_problem_name": (c_char_p, [P_problem]),
    "hdgc_problem_method": (c_char_p, [P_problem]),
    "hdgc_problem_order": (c_int, [P_problem]),
    "hdgc_problem_transient": (c_int, [P_problem]),
    "hdgc_problem_nonlinear": (c_int, [P_problem]),
    "hdgc_problem_dim": (c_int, [P_problem]),
    "hdgc_problem_warnings": (c_char_p, [P_problem]),
    "hdgc_problem_nparams": (c_int, [P_problem]),
    "hdgc_problem_param": (c_char_p, [P_problem, c_int, POINTER(c_double)]),
    "hdgc_problem_set_output": (hdg_status, [P_problem, c_void_p, c_int, P_error]),   # FILE *log
    "hdgc_problem_set_param": (hdg_status, [P_problem, c_char_p, c_double, P_error]),
    "hdgc_problem_set_option": (hdg_status, [P_problem, c_char_p, c_char_p, P_error]),
    "hdgc_check_option": (hdg_status, [c_char_p, c_char_p, P_error]),
    "hdgc_check_environment": (hdg_status, [P_error]),
    "hdgc_problem_set_mesh": (hdg_status, [P_problem, c_int, POINTER(c_double), c_int, POINTER(c_int), c_int,
                                           POINTER(c_int), POINTER(c_int), c_int, POINTER(c_char_p), P_error]),
    "hdgc_problem_set_mesh_simplices": (hdg_status, [P_problem, c_int, c_int, POINTER(c_double), c_int,
                                                     POINTER(c_int), c_int, POINTER(c_int), POINTER(c_int), c_int,
                                                     POINTER(c_char_p), P_error]),
    "hdgc_problem_on_step": (hdg_status, [P_problem, c_int, hdgc_step_fn, c_void_p, P_error]),
    "hdgc_solve": (hdg_status, [P_problem, POINTER(P_result), P_error]),
    "hdgc_mpi_rank": (c_int, []),
    "hdgc_mpi_size": (c_int, []),
    "hdgc_mpi_abort": (None, [c_int]),
    "hdgc_result_free": (None, [P_result]),
    "hdgc_result_status": (hdg_status, [P_result]),
    "hdgc_result_report": (c_char_p, [P_result]),
    "hdgc_result_number": (c_double, [P_result, c_char_p]),
    "hdgc_result_string": (c_char_p, [P_result, c_char_p]),
    "hdgc_result_summary": (c_char_p, [P_result]),
    "hdgc_result_write_report": (hdg_status, [P_result, c_char_p, c_int, P_error]),
    "hdgc_write_status_report": (hdg_status, [c_char_p, c_char_p, c_char_p, hdg_status, c_char_p, c_int, P_error]),
    "hdgc_result_error": (c_double, [P_result, c_char_p]),
    "hdgc_result_estimate": (c_double, [P_result, c_char_p]),
    "hdgc_result_indicators": (c_int, [P_result, c_char_p, POINTER(POINTER(c_double))]),
    "hdgc_result_nfields": (c_int, [P_result]),
    "hdgc_result_field": (POINTER(hdgc_field), [P_result, c_int]),
    "hdgc_result_field_named": (POINTER(hdgc_field), [P_result, c_char_p]),
    "hdgc_result_mesh": (c_int, [P_result, POINTER(c_int), POINTER(POINTER(c_double)), POINTER(POINTER(c_int))]),
    "hdgc_result_mesh_simplices": (c_int, [P_result, POINTER(c_int), POINTER(c_int), POINTER(POINTER(c_double)),
                                           POINTER(POINTER(c_int))]),
    "hdgc_result_trace": (c_longlong, [P_result, POINTER(POINTER(c_double)), POINTER(c_int)]),
    # what is handed over "to free" is a c_void_p (read it with ctypes.string_at, then hdgc_free)
    "hdgc_free": (None, [c_void_p]),
    "hdgc_problem_load_with": (hdg_status, [c_char_p, c_int, c_int, POINTER(c_char_p), POINTER(c_double),
                                            POINTER(P_problem), POINTER(c_void_p), P_error]),
    "hdgc_problem_summary": (c_char_p, [P_problem]),
    "hdgc_problem_nunknowns": (c_int, [P_problem]),
    "hdgc_problem_unknown": (c_char_p, [P_problem, c_int, POINTER(c_int)]),
    "hdgc_problem_ir": (hdg_status, [P_problem, c_int, POINTER(c_void_p), P_error]),
    "hdgc_problem_source": (hdg_status, [P_problem, c_char_p, c_int, POINTER(c_void_p), P_error]),
    "hdgc_mesh_load": (hdg_status, [c_char_p, c_int, POINTER(P_mesh), P_error]),
    "hdgc_mesh_free": (None, [P_mesh]),
    "hdgc_mesh_size": (c_int, [P_mesh, POINTER(c_int), POINTER(c_int), POINTER(c_int)]),
    "hdgc_mesh_info": (c_char_p, [P_mesh]),
    "hdgc_mesh_h": (hdg_status, [P_mesh, POINTER(c_double), POINTER(c_double), P_error]),
    "hdgc_problem_check_markers": (hdg_status, [P_problem, P_mesh, POINTER(c_void_p), P_error]),
    "hdgc_result_has": (c_int, [P_result, c_char_p]),
    "hdgc_result_nwarnings": (c_int, [P_result]),
    "hdgc_result_warning": (c_char_p, [P_result, c_int, POINTER(c_char_p)]),
    "hdgc_report_push_string": (None, [P_report, c_char_p, c_char_p]),
    "hdgc_report_new": (P_report, []),
    "hdgc_report_free": (None, [P_report]),
    "hdgc_report_set_number": (None, [P_report, c_char_p, c_double]),
    "hdgc_report_set_int": (None, [P_report, c_char_p, c_longlong]),
    "hdgc_report_set_string": (None, [P_report, c_char_p, c_char_p]),
    "hdgc_report_push": (P_report, [P_report, c_char_p]),
    "hdgc_report_text": (c_void_p, [P_report]),
    "hdgc_report_write": (hdg_status, [P_report, c_char_p, P_error]),
    "hdgc_plot_fit": (c_int, [c_int, POINTER(c_double), POINTER(c_double), POINTER(c_double), POINTER(c_double)]),
    "hdgc_plot_format": (c_int, [c_char_p]),
    "hdgc_plot_write": (hdg_status, [c_char_p, POINTER(hdgc_plot), P_error]),
    "hdgc_vtk_write": (hdg_status, [c_char_p, POINTER(hdgc_lattice_fields), c_char_p, P_error]),
    "hdgc_png_write": (hdg_status, [c_char_p, POINTER(hdgc_lattice_fields), c_int, POINTER(hdgc_png_options),
                                    P_error]),
    "hdg_status_name": (c_char_p, [hdg_status]),
    "hdg_error_clear": (None, [P_error]),
}

# Those the package calls; the others are declared when the library has them (lib.hdgc_declared).
OPTIONAL = {
    "hdgc_problem_warnings", "hdgc_problem_set_output", "hdgc_check_option", "hdgc_result_string",
    "hdgc_result_summary", "hdgc_result_write_report", "hdgc_write_status_report"}
OPTIONAL |= {n for n in SIGNATURES if n.startswith(("hdgc_mesh_", "hdgc_report_", "hdgc_plot_"))}
OPTIONAL |= {"hdgc_free", "hdgc_problem_load_with", "hdgc_problem_summary", "hdgc_problem_nunknowns",
             "hdgc_problem_unknown", "hdgc_problem_ir", "hdgc_problem_source", "hdgc_problem_check_markers",
             "hdgc_result_has", "hdgc_check_environment", "hdgc_result_estimate", "hdgc_result_indicators",
             "hdgc_result_nwarnings", "hdgc_result_warning", "hdgc_mpi_abort"}
REQUIRED = {n for n in SIGNATURES if n not in OPTIONAL}


def _checkout_build(here):
    """The checkout's build/libhdgc.so when this package is python/hdgc of a checkout, else None
    (an installed package has no checkout around it)."""
    root = os.path.normpath(os.path.join(here, "..", ".."))
    if not os.path.isfile(os.path.join(root, "include", "hdgc.h")):
        return None
    return os.path.join(root, "build", "libhdgc.so")


def _candidates():
    here = os.path.dirname(os.path.abspath(__file__))
    out = []
    bundled = os.path.join(here, "libhdgc.so")
    if os.path.exists(bundled):
        out.append(("bundled with the package", bundled))
    env = os.environ.get("HDGC_LIBRARY")
    if env:
        return out + [("$HDGC_LIBRARY", env)]
    build = _checkout_build(here)
    if build:
        out.append(("the checkout's build", build))
    out.append(('find_library("hdgc")', ctypes.util.find_library("hdgc")))
    return out


def _load():
    tried = []
    for how, path in _candidates():
        if not path:
            tried.append(f"{how}: not found")
            continue
        if how != "$HDGC_LIBRARY" and os.sep in path and not os.path.exists(path):
            tried.append(f"{how}: {path}: no such file")
            continue
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            tried.append(f"{how}: {e}")
            continue
        missing = sorted(n for n in REQUIRED if not hasattr(lib, n))
        if missing:
            tried.append(f"{how}: {path} lacks {', '.join(missing)} (an older libhdgc?)")
            continue
        lib.hdgc_declared = set()
        for name, (res, args) in SIGNATURES.items():
            if hasattr(lib, name):
                fn = getattr(lib, name)
                fn.restype, fn.argtypes = res, args
                lib.hdgc_declared.add(name)
        lib.hdgc_path = path
        return lib
    raise ImportError("hdgc: cannot load libhdgc.so: install the package with `pip install .` from the "
                      "repository's root (it builds and bundles the library), or set HDGC_LIBRARY to a "
                      "libhdgc.so; tried:\n  " + "\n  ".join(tried))


lib = _load()
