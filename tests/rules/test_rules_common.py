"""What the registered rules do alike: without a data root, on a form outside their lookup, and the
cached constants some of them read."""
from __future__ import annotations

from auditflow.rules.finding import Outcome

from conformance import base, codes, run
from test_dqc_0008 import case as case_0008
from test_dqc_0036 import case as case_0036



def test_rules_that_need_the_data_root_say_so_without_one():
    r = run("0008", base(), None)
    assert r.findings == () and r.checks[0].outcome is Outcome.NOT_APPLICABLE and "data root" in r.warnings[0]


def test_a_form_outside_the_lookup_is_not_checked(data_root):
    b, _ = case_0036()
    b.facts[0] = b.facts[0].__class__(b.facts[0].concept, b.facts[0].context_id, "N-CSR", None, None, id="f0")
    r = run("0036", b, data_root)
    assert r.findings == () and "out of scope" in r.checks[0].reason


def test_decoded_constants_are_cached_on_disk_and_a_damaged_cache_is_rewritten(data_root, tmp_path, monkeypatch):
    import pickle

    from auditflow.rules import common

    monkeypatch.setenv("AUDITFLOW_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(common, "_DECODED", {})
    first = run("0008", case_0008()[0], data_root)
    files = list((tmp_path / "dqc-constants").glob("*.pickle"))
    assert len(files) == 1
    for f in files:  # a tampered entry (a pickle that names a callable) is not trusted
        f.write_bytes(pickle.dumps(print))
    monkeypatch.setattr(common, "_DECODED", {})
    again = run("0008", case_0008()[0], data_root)
    assert codes(again) == codes(first) == ["DQC.US.0008.6819"]
    assert pickle.loads(files[0].read_bytes()) != print  # rewritten with the decoded data
