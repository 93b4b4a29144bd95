#!/usr/bin/python3
"""A stand-in for `systemctl` inside scripts/deploy-check's Debian tree, where no systemd runs.

It starts and stops the units docs/deploy.md installs the way systemd would run them, reading
the unit files themselves: User and Group, Environment and EnvironmentFile, UMask, WorkingDirectory (/ by default),
StateDirectory (with its mode), ExecStart (in the background for Type=simple, to the end for
Type=oneshot, then ExecStartPost). The sandboxing options (ProtectSystem and the like), restarts
and timers are not applied: `enable` of a timer only records it. `reload nginx` starts nginx if it
is not running. Only what the deploy walk-through needs is here.
"""

from __future__ import annotations

import os
import pwd
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

UNITS = Path("/etc/systemd/system")
RUN = Path("/run/deploy-check")


def _unit(name: str) -> dict[str, list[str]]:
    path = UNITS / (name if "." in name else f"{name}.service")
    values: dict[str, list[str]] = {}
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";", "[")) or "=" not in line:
            continue
        key, _, value = line.partition("=")
        values.setdefault(key.strip(), []).append(value.strip())
    return values


def _environment(unit: dict[str, list[str]]) -> dict[str, str]:
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}
    for item in unit.get("Environment", []):
        for pair in shlex.split(item):
            key, _, value = pair.partition("=")
            env[key] = value
    for item in unit.get("EnvironmentFile", []):
        optional, path = item.startswith("-"), Path(item.lstrip("-"))
        if not path.exists():
            if optional:
                continue
            sys.exit(f"systemctl: {path} is missing")
        for line in path.read_text().splitlines():
            if line.strip() and not line.lstrip().startswith("#"):
                key, _, value = line.partition("=")
                env[key.strip()] = value.strip().strip("'\"")
    return env


def _command(text: str) -> list[str]:
    return shlex.split(text.lstrip("-@+!").replace("%%", "%"))


def _as_user(unit: dict[str, list[str]]) -> tuple[list[str], int]:
    user = unit.get("User", ["root"])[0]
    entry = pwd.getpwnam(user)
    home = entry.pw_dir
    for directory in unit.get("StateDirectory", []):
        path = Path("/var/lib") / directory
        path.mkdir(parents=True, exist_ok=True)
        os.chown(path, entry.pw_uid, entry.pw_gid)
        path.chmod(int(unit.get("StateDirectoryMode", ["0755"])[0], 8))
    umask = int(unit.get("UMask", ["0022"])[0], 8)
    # systemd starts a system unit in its WorkingDirectory, by default /.
    os.chdir(unit.get("WorkingDirectory", ["/"])[0])
    prefix = ["setpriv", f"--reuid={entry.pw_uid}", f"--regid={entry.pw_gid}", "--init-groups"]
    os.environ["HOME"] = home
    return prefix, umask


def start(name: str) -> None:
    unit = _unit(name)
    prefix, umask = _as_user(unit)
    env = {**_environment(unit), "HOME": os.environ["HOME"]}
    old = os.umask(umask)
    try:
        if unit.get("Type", ["simple"])[0] == "oneshot":
            for key in ("ExecStart", "ExecStartPost"):
                for command in unit.get(key, []):
                    subprocess.run([*prefix, *_command(command)], env=env, check=True)
            return
        RUN.mkdir(parents=True, exist_ok=True)
        log = (RUN / f"{name}.log").open("ab")
        process = subprocess.Popen(
            [*prefix, *_command(unit["ExecStart"][0])], env=env, stdout=log, stderr=log,
            start_new_session=True,
        )  # fmt: skip
        (RUN / f"{name}.pid").write_text(str(process.pid))
    finally:
        os.umask(old)


def stop(name: str) -> None:
    pidfile = RUN / f"{name}.pid"
    if not pidfile.exists():
        return
    pid = int(pidfile.read_text())
    try:
        os.killpg(pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.2)
    pidfile.unlink()


def reload(name: str) -> None:
    if name.startswith("nginx"):
        pid = Path("/run/nginx.pid").read_text().strip() if Path("/run/nginx.pid").exists() else ""
        running = pid.isdigit() and Path(f"/proc/{pid}").exists()  # `nginx -t` leaves it empty
        subprocess.run(["nginx", "-s", "reload"] if running else ["nginx"], check=True)
    else:
        print(f"systemctl (deploy-check): {name} is not started here", file=sys.stderr)


def main(args: list[str]) -> None:
    words = [a for a in args if not a.startswith("-")]
    now = "--now" in args
    if not words or words[0] == "daemon-reload":
        return
    verb, names = words[0], words[1:]
    for name in names:
        base = name.removesuffix(".service")
        if verb == "enable":
            if now and not name.endswith(".timer"):
                start(base)
        elif verb == "start":
            start(base)
        elif verb == "stop":
            stop(base)
        elif verb == "restart":
            stop(base)
            start(base)
        elif verb == "reload":
            reload(base)
        else:
            sys.exit(f"systemctl (deploy-check): {verb} is not supported here")


if __name__ == "__main__":
    main(sys.argv[1:])
