"""The package itself: its version, the ctypes declarations against include/hdgc.h, the
library lookup's message when it finds nothing."""
import os
import re
import subprocess
import sys

import hdgc
from hdgc import _lib
from conftest import ROOT


def test_version_is_the_projects():
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        cmake = re.search(r"project\(hdgc VERSION ([0-9.]+)", f.read()).group(1)
    with open(os.path.join(ROOT, "pyproject.toml")) as f:   # pip install . (the repository's root)
        py = re.search(r'^version = "([0-9.]+)"', f.read(), re.M).group(1)
    assert cmake == py == hdgc.__version__


def test_every_function_of_the_header_is_declared():
    with open(os.path.join(ROOT, "include", "hdgc.h")) as f:
        text = re.sub(r"/\*.*?\*/", "", f.read(), flags=re.S)
    names = set(re.findall(r"\b(hdgc_\w+)\s*\(", text)) - {"hdgc_step_fn"}
    assert len(names) >= 20
    assert names <= set(_lib.SIGNATURES), sorted(names - set(_lib.SIGNATURES))
    for name in _lib.SIGNATURES:
        fn = getattr(_lib.lib, name, None)
        if fn is not None:
            assert fn.argtypes is not None, name


def test_library_not_found_message():
    env = dict(os.environ, HDGC_LIBRARY="/nonexistent/libhdgc.so")
    code = "import sys; sys.path.insert(0, %r); import hdgc" % os.path.join(ROOT, "python")
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert proc.returncode != 0
    assert "ImportError: hdgc: cannot load libhdgc.so" in proc.stderr
    assert "$HDGC_LIBRARY: /nonexistent/libhdgc.so" in proc.stderr


def test_library_not_found_outside_a_checkout(tmp_path):
    """A package installed without its library (a copy outside any checkout) names no made-up
    path of a checkout's build and says how to get the library."""
    import shutil
    shutil.copytree(os.path.join(ROOT, "python", "hdgc"), tmp_path / "hdgc",
                    ignore=shutil.ignore_patterns("libhdgc*.so", "__pycache__"))
    env = {k: v for k, v in os.environ.items() if k not in ("HDGC_LIBRARY", "LD_LIBRARY_PATH", "PYTHONPATH")}
    proc = subprocess.run([sys.executable, "-c", "import hdgc"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert proc.returncode != 0
    assert "ImportError: hdgc: cannot load libhdgc.so: install the package with `pip install .`" in proc.stderr
    assert "build" not in proc.stderr.split("tried:")[1], proc.stderr
    assert 'find_library("hdgc")' in proc.stderr
