#!/usr/bin/env python3
"""Drives text-browser-cli's REPL in a pseudo-terminal, typing key by key as a person does, and
checks that an error the page logs while the prompt waits is printed above the prompt as it
happens (and the prompt drawn again), not at the next key press.

Usage: live_above_prompt.py CLI_BINARY RPC_URL API_KEY FIXTURES_URL   (exit 0 when it holds)
"""
import os
import pty
import select
import sys
import time

cli, url, key, fixtures = sys.argv[1:5]
pid, fd = pty.fork()
if pid == 0:
    os.environ["HOME"] = os.environ.get("TMPDIR", "/tmp")
    os.execv(cli, [cli, "--url", url, "--key", key])

screen = b""


def read_for(seconds, until=None, since=0):
    """Reads the terminal for up to `seconds`, or until `until` has been printed after `since`."""
    global screen
    end = time.time() + seconds
    while time.time() < end:
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            try:
                screen += os.read(fd, 4096)
            except OSError:
                return
        if until is not None and until in screen[since:]:
            return


def type_line(text, answer=None):
    """Types `text` and Enter; with `answer`, waits for it, pressing Enter once more if a loaded
    machine delivered the keys as one burst, which the line editor may hold until the next key."""
    for ch in text.encode():
        os.write(fd, bytes([ch]))
        time.sleep(0.005)
    os.write(fd, b"\r")
    if answer is not None:
        read_for(10, answer)
        if answer not in screen:
            os.write(fd, b"\r")
            # Generously: the suite may run on a machine with every core busy.
            read_for(120, answer)
        if answer not in screen:
            fail(f"{text!r} was not answered within 130 s")


def fail(why):
    print(why + "\n--- the terminal showed:\n" + screen.decode(errors="replace"), file=sys.stderr)
    os.kill(pid, 9)
    sys.exit(1)


read_for(30, b"tb> ")
type_line(f"goto {fixtures}/invoices/", b'"status":200')
# The next line is typed only at the prompt drawn after the answer: keys typed before it would
# reach a terminal the line editor has not taken over yet.
read_for(30, b"tb> ", since=screen.index(b'"status":200'))
if b"tb> " not in screen[screen.index(b'"status":200'):]:
    fail("no prompt after goto's answer")
mark = len(screen)
type_line("eval setTimeout(() => console.error('logged while you think'), 1000); 1", b'{"result":1}')
typed_at = time.time()
# No key is pressed now: the error must show up on its own, with the prompt drawn again after it.
read_for(15, b"logged while you think\x1b[0m\r\n")
after = screen[mark:]
if b"console   logged while you think" not in after.split(b'{"result":1}', 1)[-1]:
    fail("the error the page logged while the prompt waited was not printed (within 15 s, no key pressed)")
waited = time.time() - typed_at
read_for(2, b"logged while you think\x1b[0m\r\n\r\x1b[Ktb> ")
if b"tb> " not in screen.split(b"logged while you think", 1)[1]:
    fail("the prompt was not drawn again after the error")
type_line(".quit", b"live events ended")
deadline = time.time() + 30
while os.waitpid(pid, os.WNOHANG) == (0, 0):
    if time.time() > deadline:
        fail("the REPL did not exit after .quit")
    read_for(0.2)
print(f"printed above the prompt {waited:.2f} s after the call returned (the page logged it after 1 s)")
