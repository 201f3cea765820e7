"""``apconform ap1``: seal, run, verify, score, rescore, adjudicate, serve-mock.

Thin over the library; may import every other part of ``apconform.ap1``.
"""
