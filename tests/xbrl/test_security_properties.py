"""Security properties kept (issue 18), watched from inside: a loader run under a ``sys.addaudithook``
hook, in a subprocess, over hostile filings. It may open files only in the filing's folder, the data
root's taxonomy packages and DQC resources, Python's own installation and the repository; it makes no
network call; entities are never expanded; zip members never land outside their archive."""
from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.xbrl.test_loader_safety import INSTANCE, SCHEMA, write_filing

REPO = Path(__file__).resolve().parents[2]

WATCH = r"""
import json, os, sys
opened, network = [], []
def hook(event, args):
    if event == "open" and args and isinstance(args[0], (str, bytes)):
        opened.append(os.path.realpath(os.fsdecode(args[0])))
    elif event in ("socket.connect", "socket.getaddrinfo", "socket.gethostbyname", "socket.sendto", "socket.sendmsg"):
        network.append(event)
sys.addaudithook(hook)
from auditflow.cli.main import main
code = main(["check", sys.argv[1], "--format", "json", "--data-root", sys.argv[2], *sys.argv[3:]])
print(json.dumps({"code": code, "opened": opened, "network": network}), file=sys.stderr)
"""


def _watched(path: Path, data_root: Path, *more: str) -> dict:
    out = subprocess.run([sys.executable, "-c", WATCH, str(path), str(data_root), *more], capture_output=True, text=True,
                         timeout=120, cwd=REPO, env={"PATH": "/usr/bin:/bin", "AUDITFLOW_FILING_CACHE": "off",
                                                     "HOME": str(path.parent)})
    return json.loads(out.stderr.strip().splitlines()[-1])


def _allowed(p: str, filing: Path, data_root: Path) -> bool:
    roots = [filing.resolve(), data_root.resolve() / "taxonomy", data_root.resolve() / "dqc", Path(sys.prefix).resolve(),
             Path(sys.base_prefix).resolve(), REPO, Path("/dev/null"), Path("/proc"), Path("/etc/localtime")]
    return any(Path(p).is_relative_to(r) for r in roots) or p.startswith("/usr/lib") or p.startswith("/tmp/")


class _Listener:
    """A local TCP port that counts connections: a fetch would knock here."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.port, self.hits, self.stop = self.sock.getsockname()[1], 0, False
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stop:
            try:
                conn, _ = self.sock.accept()
                self.hits += 1
                conn.close()
            except OSError:
                continue

    def close(self) -> None:
        self.stop = True
        self.thread.join(2)
        self.sock.close()


@pytest.fixture
def listener():
    server = _Listener()
    yield server
    server.close()


def test_no_network_and_no_read_outside_for_hostile_references(tmp_path, data_root, listener):
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "passwd").write_text("TOP SECRET")
    url = f"http://127.0.0.1:{listener.port}"
    refs = (f'<link:linkbaseRef xlink:type="simple" xlink:href="{url}/x_cal.xml" '
            'xlink:arcrole="http://www.w3.org/1999/xlink/properties/linkbase"/>')
    inst = INSTANCE.format(ctx="c1").replace('xlink:href="t.xsd"', 'xlink:href="t.xsd"/>\n  <link:schemaRef xlink:type="simple" '
                                             f'xlink:href="{url}/evil.xsd"')
    folder = write_filing(tmp_path / "filing", instance=inst, refs=refs)
    seen = _watched(folder, data_root)
    assert seen["network"] == [] and listener.hits == 0
    outside = [p for p in seen["opened"] if not _allowed(p, folder, data_root)]
    assert outside == [] and not any(p.startswith(str(secret)) for p in seen["opened"])


@pytest.mark.parametrize("attack", ["symlink-folder", "xxe", "href-climb"])
def test_no_read_outside_the_filing_folder(tmp_path, data_root, attack):
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "passwd").write_text("TOP SECRET")
    if attack == "symlink-folder":
        ref = ('<link:linkbaseRef xlink:type="simple" xlink:href="ext/passwd" '
               'xlink:arcrole="http://www.w3.org/1999/xlink/properties/linkbase"/>')
        folder = write_filing(tmp_path / "filing", refs=ref)
        (folder / "ext").symlink_to(secret, target_is_directory=True)
    elif attack == "xxe":
        inst = INSTANCE.format(ctx="c1").replace('<?xml version="1.0" encoding="UTF-8"?>', '<?xml version="1.0"?>\n<!--' + "c" * 70_000
                                                 + f'-->\n<!DOCTYPE x [<!ENTITY xxe SYSTEM "file://{secret}/passwd">]>').replace(">100<", ">&xxe;<")
        folder = write_filing(tmp_path / "filing", instance=inst)
    else:
        ref = ('<link:linkbaseRef xlink:type="simple" xlink:href="../secret/passwd" '
               'xlink:arcrole="http://www.w3.org/1999/xlink/properties/linkbase"/>')
        folder = write_filing(tmp_path / "filing", refs=ref)
    seen = _watched(folder, data_root, "--no-taxonomy")
    assert seen["code"] == 2  # refused, typed
    assert not any(p.startswith(str(secret.resolve())) for p in seen["opened"]), seen["opened"]


def test_no_zip_escape(tmp_path, data_root):
    import zipfile

    archive = tmp_path / "f.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("filing/t.xml", INSTANCE.format(ctx="c1"))
        z.writestr("filing/t.xsd", SCHEMA.format(refs=""))
        z.writestr("../../escaped.xml", "<x/>")
    seen = _watched(archive, data_root, "--no-taxonomy")
    assert seen["code"] == 2 and not list(tmp_path.parent.glob("escaped.xml"))
    assert not any(p.endswith("escaped.xml") for p in seen["opened"])
