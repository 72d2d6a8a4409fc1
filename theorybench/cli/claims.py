"""`theorybench claims` (the study's claims with their status) and `theorybench claim NAME`
(run a claim's check and print its certificate)."""

from __future__ import annotations

from ..proofs import claims as C
from .common import print_json, print_table


def register(sub) -> None:
    p = sub.add_parser("claims", help="list the study's checked claims with their status",
                       description="List the claims of theorybench/proofs. The status is "
                                   "that of each claim's check at its small default size "
                                   "(run `theorybench claim NAME --max-n N` for more).")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_claims)

    p = sub.add_parser("claim", help="run a claim's check and print its certificate",
                       description="Run the check of one claim up to max_n and print the "
                                   "certificate: every step, how it was established, up "
                                   "to which n, and the overall status.")
    p.add_argument("name", help=f"the claim (one of: {', '.join(C.names())})")
    p.add_argument("--max-n", type=int, default=None,
                   help="largest size the check runs to (default: the claim's small size)")
    p.add_argument("--format", choices=("markdown", "json"), default="markdown")
    p.add_argument("--proof", action="store_true",
                   help="print the statement, assumptions and proof before the certificate")
    p.set_defaults(func=cmd_claim)


def cmd_claims(args) -> int:
    rows = []
    for claim in C.all_claims():
        cert = claim.check()
        rows.append({"claim": claim.name, "title": claim.title, "status": cert.status,
                     "checked_with_max_n": cert.max_n, "conditional_on": cert.conditions,
                     "seconds": round(cert.seconds, 2)})
    if args.format == "json":
        print_json(rows)
        return 0
    print_table([(r["claim"], r["status"], r["checked_with_max_n"],
                  "; ".join(r["conditional_on"]) or "-", r["title"]) for r in rows],
                ("claim", "status", "max_n", "conditional on", "title"))
    return 0


def cmd_claim(args) -> int:
    claim = C.get(args.name)
    cert = claim.check(args.max_n)
    if args.format == "json":
        out = cert.to_dict()
        if args.proof:
            out["claim_text"] = claim.to_dict()
        print_json(out)
    else:
        if args.proof:
            print(claim.to_markdown())
        print(cert.to_markdown())
    return 0 if cert.ok else 1
