"""hdgc.Error: every failure of the library (an hdg_status other than HDG_OK)."""
import os

from ._lib import HDG_EINPUT, hdg_error, lib


class Error(RuntimeError):
    """A failed call: .code (the hdg_status number), .status (its name, e.g. "input error"),
    .message (the library's message) and, for a failed solve, .result (its report)."""

    def __init__(self, code, message, result=None):
        self.code = int(code)
        self.status = lib.hdg_status_name(self.code).decode()
        self.message = message
        self.result = result
        super().__init__(f"{self.status}: {message}" if message else self.status)


def check(code, err):
    """Raises Error for a nonzero status, with the message in the hdg_error err."""
    if code:
        raise Error(code, err.msg.decode(errors="replace"))


def input_error(message):
    return Error(HDG_EINPUT, message)


def new_error():
    return hdg_error()


def c_string(value, what, path=False):
    """value (str, or bytes/os.PathLike for a path) as the bytes of a C string; hdgc.Error naming
    `what` when it holds a NUL byte (C would read it cut short there) or cannot be encoded.
    Paths are encoded as the file system does (os.fsencode), text as UTF-8."""
    if path:
        value = os.fspath(value)
    if isinstance(value, bytes):
        data = value
    elif isinstance(value, str):
        try:
            data = os.fsencode(value) if path else value.encode()
        except UnicodeEncodeError as e:
            raise input_error(f"{what}: cannot be encoded ({e.reason} at position {e.start})") from None
    else:
        raise input_error(f"{what}: expected a string, got {type(value).__name__}")
    nul = data.find(b"\0")
    if nul >= 0:
        raise input_error(f"{what}: holds a NUL byte at position {nul}; C strings end there")
    return data
