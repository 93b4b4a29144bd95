"""Every setting is parsed in one place: a mistake is one line and exit status 2, booleans are
strict, and `companion serve` says it runs only once it listens, and stops on Ctrl-C quietly."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from server_client import Server

from companion.app import main
from companion.base import settings

COMPANION = str(Path(sys.executable).parent / "companion")
WRONG = {
    "BASE_URL": "companion.example.org",
    "LOG_FORMAT": "yaml",
    "LOG_LEVEL": "verbose",
    "PROXY_HOPS": "one",
    "EXPORT_WORKERS": "zero",
    "TRUST_REQUEST_ID": "maybe",
    "ACCESS_LOG": "nope",
    "TRUSTED_HOSTS": "[1, 2]",
    "EXPORT_TIME_LIMIT": "-5",
    "RATELIMIT_CREATE": "lots",
}


@pytest.mark.parametrize("name", sorted(WRONG))
def test_a_wrong_setting_is_one_line_naming_it_and_exit_status_2(tmp_path: Path, name: str) -> None:
    env = {"COMPANION_INSTANCE": str(tmp_path / "instance"), f"COMPANION_{name}": WRONG[name]}
    result = CliRunner().invoke(main, ["info"], env=env)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.output, result.output
    assert f"COMPANION_{name}" in lines[0] and WRONG[name].strip("[]") in lines[0]


def test_serve_refuses_a_wrong_setting_before_it_starts_anything(tmp_path: Path) -> None:
    env = {**os.environ, "COMPANION_INSTANCE": str(tmp_path / "i"), "COMPANION_LOG_LEVEL": "loud"}
    done = subprocess.run([COMPANION, "serve", "--port", "1"], env=env, capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "COMPANION_LOG_LEVEL" in done.stderr


@pytest.mark.parametrize("word", settings.TRUE_WORDS + ("TRUE", "Yes", "ON"))
def test_a_boolean_takes_the_words_for_true(word: str) -> None:
    config = {"ACCESS_LOG": word}
    settings.check(config)
    assert config["ACCESS_LOG"] is True


@pytest.mark.parametrize("word", settings.FALSE_WORDS + ("False", "NO", "Off"))
def test_a_boolean_takes_the_words_for_false(word: str) -> None:
    config = {"TRUST_REQUEST_ID": word}
    settings.check(config)
    assert config["TRUST_REQUEST_ID"] is False


@pytest.mark.parametrize("word", ["maybe", "", "2", "y", "enabled", 2, None, [True]])
def test_a_boolean_refuses_anything_else(word: object) -> None:
    with pytest.raises(settings.SettingError, match="TRUST_REQUEST_ID"):
        settings.check({"TRUST_REQUEST_ID": word})


@pytest.mark.parametrize("word", ["no", "off", "False", "0", "yes"])
def test_trust_request_id_in_any_words_means_what_it_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, word: str
) -> None:
    from companion.app import create_app

    monkeypatch.setenv("COMPANION_INSTANCE", str(tmp_path))
    monkeypatch.setenv("COMPANION_LOG_CONFIGURE", "false")  # pytest keeps its own log capture
    monkeypatch.setenv("COMPANION_TRUST_REQUEST_ID", word)
    client = create_app().test_client()
    answer = client.get("/healthz", headers={"X-Request-Id": "chosen-by-the-client"})
    trusted = answer.headers["X-Request-Id"] == "chosen-by-the-client"
    assert trusted is (word == "yes")


def test_every_setting_in_the_docs_table_is_parsed_here() -> None:
    root = Path(__file__).resolve().parent.parent
    docs = [root / "README.md", *(root / "docs").glob("*.md")]
    text = "\n".join(p.read_text() for p in docs)
    for setting in settings.SETTINGS:
        assert f"COMPANION_{setting.name}" in text or f"`{setting.name}`" in text, setting.name


def _busy_port() -> tuple[socket.socket, int]:
    held = socket.socket()
    held.bind(("127.0.0.1", 0))
    held.listen()
    return held, int(held.getsockname()[1])


def test_a_busy_port_is_one_sentence_and_never_said_to_be_running(tmp_path: Path) -> None:
    held, port = _busy_port()
    env = {**os.environ, "COMPANION_INSTANCE": str(tmp_path / "instance")}
    try:
        done = subprocess.run([COMPANION, "serve", "--port", str(port)], env=env,
                              capture_output=True, text=True, timeout=120)  # fmt: skip
    finally:
        held.close()
    assert done.returncode == 1 and "is running" not in done.stdout
    assert done.stderr.strip().count("\n") == 0, done.stderr
    assert f"127.0.0.1:{port}" in done.stderr and "--port" in done.stderr


def test_ctrl_c_stops_the_server_with_no_traceback(tmp_path: Path) -> None:
    server = Server(tmp_path / "c.sqlite3").start()
    assert server.process is not None
    os.killpg(server.process.pid, signal.SIGINT)  # what a terminal's Ctrl-C sends
    assert server.process.wait(timeout=120) == 0
    log = (tmp_path / "c.log").read_text()
    assert "Traceback" not in log and "SystemExit" not in log, log


@pytest.mark.skipif(
    os.geteuid() == 0 and shutil.which("setpriv") is None, reason="needs setpriv to drop root"
)
def test_an_instance_this_user_may_not_write_is_one_sentence(tmp_path: Path) -> None:
    instance = tmp_path / "instance"
    instance.mkdir()
    # As root, only a root without the right to override file modes is refused a folder.
    prefix = ["setpriv", "--bounding-set", "-dac_override,-fowner",
              "--inh-caps", "-dac_override,-fowner", "--"] if os.geteuid() == 0 else []  # fmt: skip
    if os.geteuid() == 0:
        os.chown(instance, 65534, 65534)
    instance.chmod(0o555)
    env = {**os.environ, "COMPANION_INSTANCE": str(instance)}
    for command in (["init-db"], ["demo"], ["serve", "--port", "1"]):
        done = subprocess.run([*prefix, COMPANION, *command], env=env, capture_output=True,
                              text=True, timeout=120)  # fmt: skip
        assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
        assert f"may not write {instance}" in done.stderr and "sudo -u companion" in done.stderr


@pytest.mark.skipif(
    os.geteuid() == 0 and shutil.which("setpriv") is None, reason="needs setpriv to drop root"
)
def test_serve_refuses_an_exports_folder_it_may_not_write(tmp_path: Path) -> None:
    """As under the shipped unit's ProtectSystem=strict with a shared folder left out of its
    ReadWritePaths: one sentence, and no server that would fail every book."""
    exports = tmp_path / "shared-exports"
    exports.mkdir()
    prefix = ["setpriv", "--bounding-set", "-dac_override,-fowner",
              "--inh-caps", "-dac_override,-fowner", "--"] if os.geteuid() == 0 else []  # fmt: skip
    if os.geteuid() == 0:
        os.chown(exports, 65534, 65534)
    exports.chmod(0o555)
    env = {**os.environ, "COMPANION_INSTANCE": str(tmp_path / "instance"),
           "COMPANION_EXPORTS_DIR": str(exports)}  # fmt: skip
    done = subprocess.run([*prefix, COMPANION, "serve", "--port", "1"], env=env,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip().count("\n") == 0 and "is running" not in done.stdout
    assert f"The exports folder {exports} cannot be written" in done.stderr
    assert "ReadWritePaths" in done.stderr
