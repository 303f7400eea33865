"""`emx serve`: one simulator process that runs each command in a forked copy of itself.

A fresh `emx` process spends about 4 ms of CPU before its command starts (dynamic
linking; SystemC's own initialisation clears a 3 MiB buffer): a third of a small 64-PE
run, and 3 s of a full reproduction's 682 runs. A copy forked from a started server
skips it. The local pool keeps one server per worker thread (executors.LocalExecutor);
`sim.run(..., server=...)` sends its command there instead of starting `emx`.

The protocol (sim/cli/main.cpp, cmd_serve): a request is one SOCK_SEQPACKET message,
"cwd NUL word NUL word ...", carrying the command's stdin, stdout and stderr as
descriptors; the server answers "pid N" when the copy started and "exit N" or "signal N"
when it ended. Closing the socket ends the server.
"""
from __future__ import annotations

import os
import signal
import socket
import subprocess


class ServerGone(RuntimeError):
    """The server is not running (a binary without `emx serve`, or it died): run the
    command as its own process."""


class Server:
    def __init__(self, emx: str):
        self.sock, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self.proc = subprocess.Popen([emx, "serve"], stdin=theirs,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        finally:
            theirs.close()
        self.gone = False

    def run(self, words, directory: str, timeout: float | None = None) -> tuple:
        """Runs `emx WORDS...` (its stdout and stderr through files in `directory`);
        returns (returncode, stdout, stderr) as subprocess.run(text=True) would, the
        return code negative for a signal. Raises subprocess.TimeoutExpired (the copy
        killed) after `timeout` seconds, ServerGone when the server cannot run it."""
        if self.gone:
            raise ServerGone("the server ended")
        try:
            return self._run(words, directory, timeout)
        except ServerGone:
            self.gone = True
            raise

    def _run(self, words, directory: str, timeout) -> tuple:
        out_path, err_path = (os.path.join(directory, n) for n in ("stdout", "stderr"))
        request = "\0".join([os.getcwd(), *words]).encode()
        with open(os.devnull, "rb") as stdin, open(out_path, "wb") as out, \
                open(err_path, "wb") as err:
            try:
                socket.send_fds(self.sock, [request], [stdin.fileno(), out.fileno(),
                                                       err.fileno()])
                started = self._reply(None)
            except OSError as e:
                raise ServerGone(str(e))
        if not started.startswith("pid "):
            raise ServerGone(started)
        pid, killed = int(started[4:]), False
        try:
            ended = self._reply(timeout)
        except socket.timeout:
            killed = True
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            ended = self._reply(None)
        kind, _, value = ended.partition(" ")
        if kind not in ("exit", "signal"):
            raise ServerGone(ended)
        stdout, stderr = (_text(p) for p in (out_path, err_path))
        if killed:
            raise subprocess.TimeoutExpired(words, timeout, output=stdout, stderr=stderr)
        return (int(value) if kind == "exit" else -int(value)), stdout, stderr

    def _reply(self, timeout) -> str:
        self.sock.settimeout(timeout)
        data = self.sock.recv(4096)
        if not data:
            raise ServerGone("the server ended")
        return data.decode()

    def close(self) -> None:
        self.sock.close()              # EOF: the server ends
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def _text(path: str) -> str:
    """A file's text as subprocess.run(text=True) decodes a pipe (the locale's encoding,
    universal newlines)."""
    with open(path) as f:
        return f.read()
