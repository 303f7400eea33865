"""Explorer pages for the tests and the benchmark: run emx with --explore, read the data back,
and open pages in the system's Chromium through Playwright (never a downloaded browser)."""
import json
import os
import re
import shutil
import subprocess

EMX = os.environ.get("EMX", "")
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def run(page, program, *args, options=(), pes=2, timeout=300):
    """Runs PROGRAM with --explore PAGE (and OPTIONS); returns the CompletedProcess."""
    cmd = [EMX, "run", "-q", "--pes", str(pes), "--explore", page, *options, program, *args]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stderr}")
    return r


def data(page):
    """The EMX object a page carries."""
    with open(page, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"const EMX = (.*?);</script>", text, re.S)
    return json.loads(m.group(1))


def table(d, name):
    """A flat table of the data as a list of records (lists)."""
    n = d[name.rstrip("s") + "_fields"] if name != "buffer" else d["buffer_fields"]
    v = d[name]
    return [v[k:k + n] for k in range(0, len(v), n)]


def browser_missing():
    """Why the browser tests cannot run here, or None."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Python package playwright missing (scripts/setup installs it)"
    if not os.access(CHROMIUM, os.X_OK):
        return "Chromium missing (scripts/setup installs the Debian package chromium)"
    return None


def launch(playwright):
    # --no-sandbox: root in containers and CI; the pages are local files.
    return playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
