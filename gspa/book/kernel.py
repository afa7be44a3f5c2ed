"""The chapters' kernel: ipykernel with no TCP port at all.

The pipeline starts it as ``python -m gspa.book.kernel -f <folder>/kernel.json`` with the connection file
in a private folder (mode 0700) and ZeroMQ's ``ipc`` transport (Unix sockets there; see
:func:`gspa.book.pipeline.ipc_kernel_manager`). ipykernel opens one more socket by itself: the pipe on
which forked child processes send their output, bound to a random TCP port on 127.0.0.1 whatever the
transport. Here that pipe is a Unix socket in the same folder, so nothing of the kernel listens on TCP
and only this user can reach it. The rest is ipykernel's own launcher (pinned: constraints.txt)."""
from __future__ import annotations

import os
import sys
from pathlib import Path

PIPE = "iopub-pipe"    # the forked children's output pipe, a Unix socket beside the connection file


def pipe_on_unix_socket(folder: str) -> None:
    """Make ipykernel's IOPub thread bind its children's output pipe to ``ipc://<folder>/iopub-pipe``
    instead of a TCP port; messages keep their random 16-byte prefix, which the thread checks."""
    import zmq
    from ipykernel import iostream
    from zmq.eventloop.zmqstream import ZMQStream

    address = "ipc://" + os.path.join(folder, PIPE)

    def setup_in(thread):
        thread._pipe_uuid = os.urandom(16)      # forked children prefix their messages with it
        sock = thread.socket.context.socket(zmq.PULL)
        sock.linger = 0
        sock.bind(address)
        thread._pipe_in = ZMQStream(sock, thread.io_loop)
        thread._pipe_in.on_recv(thread._handle_pipe_msg)

    def setup_out(thread):
        ctx = zmq.Context()                      # a forked child needs a context of its own
        sock = ctx.socket(zmq.PUSH)
        sock.linger = 3000
        sock.connect(address)
        return ctx, sock

    thread_class = iostream.IOPubThread
    if not all(callable(getattr(thread_class, m, None)) for m in ("_setup_pipe_in", "_setup_pipe_out",
                                                                  "_handle_pipe_msg")):
        raise RuntimeError("this ipykernel has no IOPub pipe to move off TCP; install the version pinned in "
                           "constraints.txt")
    thread_class._setup_pipe_in = setup_in
    thread_class._setup_pipe_out = setup_out


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if "-f" not in argv[:-1]:
        raise SystemExit("usage: python -m gspa.book.kernel -f CONNECTION_FILE [ipykernel options]")
    pipe_on_unix_socket(os.path.dirname(os.path.abspath(argv[argv.index("-f") + 1])))
    if sys.path and (sys.path[0] == "" or Path(sys.path[0]) == Path.cwd()):
        del sys.path[0]                          # as ipykernel_launcher: IPython adds the folder back
    from ipykernel import kernelapp
    kernelapp.launch_new_instance(argv)


if __name__ == "__main__":
    main()
