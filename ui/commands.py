"""`ragqa serve`, registered into the ragqa command through the `ragqa.commands` entry-point group (pyproject.toml),
so ragqa itself never imports the UI. Gradio is imported only when the command runs."""
from __future__ import annotations


def cmd_serve(args) -> int:
    from ui.app import launch

    return launch(host=args.host, port=args.port, insecure=args.insecure_no_auth)


def register_commands(sub) -> None:
    p = sub.add_parser("serve", help="open the chat UI in a browser")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=7860)
    p.add_argument("--insecure-no-auth", action="store_true", help="allow a non-loopback --host without RAGQA_UI_AUTH")
    p.set_defaults(func=cmd_serve)
