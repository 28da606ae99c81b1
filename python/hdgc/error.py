"""hdgc.Error: every failure of the library (an hdg_status other than HDG_OK)."""
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
