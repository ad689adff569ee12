#!/usr/bin/env python3
"""The window through the real X11 driver, as a person would use it.

Usage: test_x11.py TRACER SOURCE_DIR [--keep DIR]

Starts Xvfb (one 3840x2160 screen), opens the window with SDL's X11 driver
and drives it from outside with real X input (xdotool, through XTEST): F11
on and off ten times, twenty resizes between 640x480 and 3840x2160, minimise
and restore; then F11 on the lesson picker and in a lesson. After each, the
program must still run and the window, read back from the X server
(ImageMagick's import), must hold a drawn frame: not blank, not black where
the window grew. All of it twice: with no window manager, and under openbox
(full-screen requests go through a window manager when there is one).
Then on a 1024x768 screen, as a small projector: the window opens inside the
screen (at most nine tenths of it), its bottom rows (the timeline and the
status line) are drawn, and full screen fits it too.

Exits 77 (skipped, for meson) with one line when Xvfb, xdotool, import or
openbox is missing; tools/setup.sh installs them, so CI never skips.
Python 3 standard library only.
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

TITLE = "Transformer Tracer"
SCREEN = (3840, 2160)
CRASH_SIGNS = ("Segmentation", "Aborted", "core dumped", "Sanitizer", "runtime error:", "Assertion")
TOOLS = {"Xvfb": "xvfb", "xdotool": "xdotool", "xwininfo": "x11-utils", "xprop": "x11-utils", "import": "imagemagick", "openbox": "openbox"}


class Failure(Exception):
    pass


def wait_for(what, check, timeout=15.0, step=0.05):
    """Polls check() until it returns a true value; raises Failure after timeout."""
    end = time.monotonic() + timeout
    while True:
        got = check()
        if got:
            return got
        if time.monotonic() > end:
            raise Failure(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(step)


def run_tool(args, env, timeout=60):
    """Runs an X tool (xdotool, import, ...); one that hangs is a Failure, not a traceback."""
    try:
        return subprocess.run(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise Failure(f"{' '.join(args)}: no answer after {timeout} s") from None


class Display:
    """An Xvfb server of our own (the first free display number), and its window manager."""

    def __init__(self, wm, screen=SCREEN):
        self.screen = screen
        r, w = os.pipe()
        self.xvfb = subprocess.Popen(
            ["Xvfb", "-displayfd", str(w), "-screen", "0", f"{screen[0]}x{screen[1]}x24", "-nolisten", "tcp", "-noreset"],
            pass_fds=(w,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(w)
        with os.fdopen(r) as f:
            number = f.readline().strip()
        if not number:
            raise Failure("Xvfb did not start")
        self.env = dict(os.environ, DISPLAY=":" + number, SDL_VIDEODRIVER="x11")
        self.env.pop("WAYLAND_DISPLAY", None)
        self.wm = None
        if wm:
            self.wm = subprocess.Popen([wm], env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            # a window manager announces itself on the root window
            try:
                wait_for(f"{wm} to start", lambda: "window id" in self.run("xprop", "-root", "_NET_SUPPORTING_WM_CHECK"))
            except Failure:
                self.close()  # the caller has no Display to close
                raise

    def run(self, *args, check=False):
        r = run_tool(args, self.env)
        if check and r.returncode != 0:
            raise Failure(f"{' '.join(args)}: exit {r.returncode}: {r.stderr.decode(errors='replace').strip()}")
        return r.stdout.decode(errors="replace")

    def close(self):
        for p in (self.wm, self.xvfb):
            if p and p.poll() is None:
                p.terminate()
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()


class Window:
    """The program running on a display, and its top-level window."""

    def __init__(self, display, tracer, args, keep, name):
        self.d, self.keep, self.name, self.shots = display, keep, name, 0
        self.err = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([tracer, *args], env=display.env, stdout=subprocess.DEVNULL, stderr=self.err)
        # this process's window (SDL sets _NET_WM_PID): not one of an earlier run the server has not yet destroyed
        ids = wait_for("the window to appear", lambda: self.alive() and display.run(
            "xdotool", "search", "--all", "--pid", str(self.proc.pid), "--name", TITLE).split())
        self.id = ids[0]
        self.focus()
        self.expect_drawn("the first frame")

    def alive(self):
        if self.proc.poll() is not None:
            raise Failure(f"the program ended with {describe(self.proc.returncode)}; stderr: {self.stderr()!r}")
        return True

    def stderr(self):
        self.err.seek(0)
        return self.err.read().decode(errors="replace")

    def focus(self):
        if self.d.wm:
            self.d.run("xdotool", "windowactivate", "--sync", self.id)
        else:
            self.d.run("xdotool", "windowfocus", "--sync", self.id)

    def key(self, name):
        self.alive()
        self.d.run("xdotool", "key", "--clearmodifiers", name, check=True)

    def geometry(self):
        """(x, y, width, height) of the window, as the X server has it."""
        out = self.d.run("xwininfo", "-id", self.id)
        v = {k.strip(): val.strip() for k, _, val in (line.partition(":") for line in out.splitlines())}
        get = lambda key: int(v.get(key, "0") or 0)
        return get("Absolute upper-left X"), get("Absolute upper-left Y"), get("Width"), get("Height")

    def pixels(self):
        """The window's pixels read back from the X server: (width, height, RGB bytes)."""
        x, y, w, h = self.geometry()
        # import reads the part of the window that lies on the screen
        w, h = min(x + w, self.d.screen[0]) - max(x, 0), min(y + h, self.d.screen[1]) - max(y, 0)
        r = run_tool(["import", "-silent", "-window", self.id, "-depth", "8", "rgb:-"], self.d.env)
        if r.returncode != 0 or len(r.stdout) != w * h * 3:
            return w, h, None  # the window changed size while it was read: read again
        return w, h, r.stdout

    def blank_reason(self):
        """Why the window does not show a drawn frame, or None if it does."""
        w, h, rgb = self.pixels()
        if rgb is None:
            return "could not be read"
        # Sample a grid: a frame the program drew has its background and text
        # everywhere; a window it has not drawn since it grew is black (X's
        # default) where it grew, and a blank one is a single colour.
        colours, black, n = set(), 0, 0
        for y in range(0, h, max(1, h // 64)):
            row = y * w * 3
            for x in range(0, w, max(1, w // 64)):
                px = rgb[row + x * 3:row + x * 3 + 3]
                colours.add(px)
                black += px == b"\0\0\0"
                n += 1
        if len(colours) < 4:
            return f"{w}x{h}, only {len(colours)} colours"
        if black > n // 50:
            return f"{w}x{h}, {100 * black // n}% black"
        return None

    def expect_drawn(self, after):
        last = []

        def drawn():
            self.alive()
            last[:] = [self.blank_reason()]
            return last[0] is None

        try:
            wait_for(f"a drawn frame after {after}", drawn, timeout=20, step=0.2)
        except Failure as e:
            raise Failure(f"{e} ({last[0] if last else ''})")
        if self.keep:
            self.shots += 1
            self.d.run("import", "-silent", "-window", self.id,
                       os.path.join(self.keep, f"{self.name}-{self.shots:02d}.png"))

    def resize(self, w, h):
        self.d.run("xdotool", "windowsize", self.id, str(w), str(h), check=True)
        # a window manager may keep a window inside the screen: wait for any change to land
        try:
            wait_for(f"the size {w}x{h}", lambda: self.geometry()[2:] == (w, h), timeout=3)
        except Failure:
            pass
        self.expect_drawn(f"a resize to {w}x{h}")

    def quit(self):
        self.focus()
        self.key("ctrl+q")
        try:
            rc = self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise Failure("Ctrl+Q did not close the window within 30 s")
        err = self.stderr()
        if rc != 0:
            raise Failure(f"the program ended with {describe(rc)}; stderr: {err!r}")
        for sign in CRASH_SIGNS:
            if sign in err:
                raise Failure(f"{sign!r} on stderr: {err!r}")

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def describe(rc):
    return f"signal {signal.Signals(-rc).name}" if rc < 0 else f"exit {rc}"


def toggle_full_screen(win, times):
    for i in range(times):
        windowed = win.geometry()[2:]
        for state in ("on", "off"):
            win.focus()
            win.key("F11")
            if win.d.wm:  # a window manager makes it the screen's size, then gives the old size back
                want = win.d.screen if state == "on" else windowed
                wait_for(f"full screen {state} ({want[0]}x{want[1]})", lambda: win.geometry()[2:] == tuple(want), timeout=10)
            win.expect_drawn(f"F11 ({state}, {i + 1} of {times})")


def explore(display, tracer, keep, tag):
    win = Window(display, tracer, ["--src", "the cat sits on the mat ."], keep, tag + "-explore")
    try:
        win.key("End")  # the last step: the output tokens and their probabilities
        win.key("shift+Left")
        win.expect_drawn("End")
        toggle_full_screen(win, 10)
        sizes = [(640, 480), (3840, 2160), (1024, 768), (1920, 1080), (800, 600), (2560, 1440), (1366, 768),
                 (3200, 1800), (700, 500), (1280, 720), (3840, 1080), (640, 2160), (1600, 900), (2048, 1536),
                 (960, 540), (3000, 2000), (1280, 1024), (720, 1280), (1440, 900), (1280, 800)]
        for w, h in sizes:
            win.resize(w, h)
        # minimise and restore (with no window manager: unmap and map, as one would do)
        if display.wm:
            display.run("xdotool", "windowminimize", "--sync", win.id, check=True)
            display.run("xdotool", "windowactivate", "--sync", win.id, check=True)
        else:
            display.run("xdotool", "windowunmap", "--sync", win.id, check=True)
            time.sleep(0.2)
            win.alive()
            display.run("xdotool", "windowmap", "--sync", win.id, check=True)
            win.focus()
        win.expect_drawn("minimise and restore")
        win.focus()
        win.key("F11")
        win.expect_drawn("F11 after restore")
        win.key("F11")
        win.expect_drawn("F11 off after restore")
        win.quit()
    finally:
        win.kill()


def picker_and_lesson(display, tracer, source_dir, keep, tag):
    for name, args in (("picker", []), ("lesson", ["--lesson", os.path.join(source_dir, "lessons", "03-decoder.lesson")])):
        win = Window(display, tracer, args, keep, f"{tag}-{name}")
        try:
            win.key("Right")
            toggle_full_screen(win, 2)
            win.quit()
        finally:
            win.kill()


def expect_inside(win, what):
    """The whole window lies on the screen, and its bottom rows are drawn."""
    x, y, w, h = win.geometry()
    sw, sh = win.d.screen
    if x < 0 or y < 0 or x + w > sw or y + h > sh:
        raise Failure(f"{what}: the window {w}x{h}+{x}+{y} does not fit the screen {sw}x{sh}")
    if w > sw * 9 // 10 + 1 or h > sh * 9 // 10 + 1:
        raise Failure(f"{what}: the window {w}x{h} takes more than nine tenths of the screen {sw}x{sh}")
    # the timeline and the status line are the last rows: drawn, not cut off
    rgb = wait_for(f"{what}: the window's pixels", lambda: win.pixels()[2])
    colours = {rgb[(row * w + col) * 3:(row * w + col) * 3 + 3]
               for row in range(h * 88 // 100, h, 2) for col in range(0, w, 3)}
    if len(colours) < 4:
        raise Failure(f"{what}: the bottom eighth of the window holds {len(colours)} colours: the timeline is not there")


def small_screen(display, tracer, source_dir, keep, tag):
    for name, args in (("explore", ["--src", "the cat sits on the mat ."]),
                       ("lesson", ["--lesson", os.path.join(source_dir, "lessons", "03-decoder.lesson")])):
        win = Window(display, tracer, args, keep, f"{tag}-1024x768-{name}")
        try:
            expect_inside(win, f"{name}, opened")
            win.key("Right")
            toggle_full_screen(win, 1)
            expect_inside(win, f"{name}, after full screen")
            win.quit()
        finally:
            win.kill()


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: test_x11.py TRACER SOURCE_DIR [--keep DIR]")
    tracer, source_dir = os.path.abspath(sys.argv[1]), sys.argv[2]
    keep = sys.argv[4] if len(sys.argv) > 4 and sys.argv[3] == "--keep" else None
    missing = [f"{tool} (package {pkg})" for tool, pkg in TOOLS.items() if not shutil.which(tool)]
    if missing:
        print(f"SKIP: the real-X11 window test needs {', '.join(missing)}; bash tools/setup.sh installs them")
        sys.exit(77)
    os.environ.setdefault("TRANSFORMER_TRACER_DATA", os.path.join(source_dir, "assets"))
    # under the sanitizers: D-Bus's own leak (tests/lsan.supp) is not the program's
    supp = os.path.join(os.path.abspath(source_dir), "tests", "lsan.supp")
    os.environ["LSAN_OPTIONS"] = ":".join(filter(None, [os.environ.get("LSAN_OPTIONS", ""), "suppressions=" + supp]))
    passed = failed = 0
    for wm in (None, "openbox"):
        tag = wm or "no-wm"
        for name, screen, run in (("explore", SCREEN, lambda d: explore(d, tracer, keep, tag)),
                                  ("picker and lesson", SCREEN, lambda d: picker_and_lesson(d, tracer, source_dir, keep, tag)),
                                  ("a 1024x768 screen", (1024, 768), lambda d: small_screen(d, tracer, source_dir, keep, tag))):
            display = None
            start = time.monotonic()
            try:
                display = Display(wm, screen)
                run(display)
                passed += 1
                print(f"ok: {tag}: {name} ({time.monotonic() - start:.1f} s)")
            except Failure as e:
                failed += 1
                print(f"FAIL: {tag}: {name}: {e}")
            finally:
                if display:
                    display.close()
    print(f"x11: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
