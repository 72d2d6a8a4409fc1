"""New theoretical results as ``Claim`` objects: statement, assumptions, proof text and an
executable ``check(max_n) -> Certificate`` of everything in the proof a computer can check."""
