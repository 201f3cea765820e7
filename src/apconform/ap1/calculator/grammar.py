"""The calculator's grammar: a hand-written tokenizer and parser, no eval, exec or compile.

Python's own parser is not used (``ast.parse`` compiles, drops the literal text
of numbers and has its own notion of ``^``). Here ``^`` and ``**`` both mean
power, bind tighter than a unary sign and associate to the right
(``-2^2 = -4``, ``2^3^2 = 512``); every number keeps its literal text; sums and
products are flat chains, so the tree's depth is bounded by the nesting limit,
never by the expression's length.

    expression := term (("+" | "-") term)*
    term       := unary (("*" | "/") unary)*
    unary      := ("+" | "-") unary | power
    power      := atom ("^" unary)?
    atom       := number | name | name "(" expression ("," expression)* ")" | "(" expression ")"
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "MAX_EXPRESSION_CHARS",
    "MAX_NESTING_DEPTH",
    "MAX_NUMBER_CHARS",
    "CalcSyntaxError",
    "Call",
    "Chain",
    "Name",
    "Node",
    "Num",
    "Power",
    "Unary",
    "parse",
]

MAX_EXPRESSION_CHARS = 500
MAX_NESTING_DEPTH = 32
MAX_NUMBER_CHARS = 60

_ALIASES = {"\u00d7": "*", "\u00f7": "/", "\u2212": "-"}
_NUMBER = re.compile(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_BLANKS = re.compile(r"[ \t\r\n]+")


class CalcSyntaxError(Exception):
    """The expression is not in the grammar or breaks a bound; the message is for the model."""


@dataclass(frozen=True)
class Num:
    text: str


@dataclass(frozen=True)
class Name:
    name: str


@dataclass(frozen=True)
class Unary:
    sign: str
    operand: Node


@dataclass(frozen=True)
class Power:
    base: Node
    exponent: Node


@dataclass(frozen=True)
class Chain:
    """A left-to-right chain of one precedence level: first, then (operator, operand) pairs."""

    first: Node
    rest: tuple[tuple[str, Node], ...]


@dataclass(frozen=True)
class Call:
    name: str
    args: tuple[Node, ...]


Node = Num | Name | Unary | Power | Chain | Call


def _tokens(text: str) -> list[tuple[str, str, int]]:
    """(kind, text, position) triples; kinds are num, name and op."""
    out: list[tuple[str, str, int]] = []
    i, end = 0, len(text)
    while i < end:
        ch = text[i]
        if ch in " \t\r\n":
            i = _BLANKS.match(text, i).end()  # type: ignore[union-attr]
            continue
        ch = _ALIASES.get(ch, ch)
        if text.startswith("**", i):
            out.append(("op", "^", i))
            i += 2
            continue
        if ch in "+-*/^(),":
            out.append(("op", ch, i))
            i += 1
            continue
        number = _NUMBER.match(text, i)
        if number:
            literal = number.group(0)
            if len(literal) > MAX_NUMBER_CHARS:
                raise CalcSyntaxError(
                    f"number at position {i} is longer than {MAX_NUMBER_CHARS} characters"
                )
            out.append(("num", literal, i))
            i = number.end()
            continue
        name = _NAME.match(text, i)
        if name:
            out.append(("name", name.group(0), i))
            i = name.end()
            continue
        if ch == "%":
            raise CalcSyntaxError(
                f"'%' at position {i} is not supported; write a percentage as a division by 100"
            )
        if ch == "=":
            raise CalcSyntaxError(f"'=' at position {i} is not supported; send only the expression")
        shown = ch if ch.isprintable() else f"U+{ord(ch):04X}"
        raise CalcSyntaxError(f"unexpected character {shown!r} at position {i}")
    return out


class _Parser:
    def __init__(self, tokens: list[tuple[str, str, int]], length: int) -> None:
        self.tokens = tokens
        self.index = 0
        self.length = length

    def peek(self) -> tuple[str, str, int] | None:
        return self.tokens[self.index] if self.index < len(self.tokens) else None

    def take(self) -> tuple[str, str, int]:
        token = self.peek()
        if token is None:
            raise CalcSyntaxError("the expression ends too early")
        self.index += 1
        return token

    def is_op(self, *symbols: str) -> bool:
        index = self.index
        if index >= len(self.tokens):
            return False
        token = self.tokens[index]
        return token[0] == "op" and token[1] in symbols

    @staticmethod
    def deeper(depth: int) -> int:
        if depth + 1 > MAX_NESTING_DEPTH:
            raise CalcSyntaxError(
                f"the expression is nested deeper than {MAX_NESTING_DEPTH} levels "
                "(parentheses, signs and powers)"
            )
        return depth + 1

    def expression(self, depth: int) -> Node:
        first = self.term(depth)
        rest: list[tuple[str, Node]] = []
        while self.is_op("+", "-"):
            rest.append((self.take()[1], self.term(depth)))
        return Chain(first, tuple(rest)) if rest else first

    def term(self, depth: int) -> Node:
        first = self.unary(depth)
        rest: list[tuple[str, Node]] = []
        while self.is_op("*", "/"):
            rest.append((self.take()[1], self.unary(depth)))
        return Chain(first, tuple(rest)) if rest else first

    def unary(self, depth: int) -> Node:
        if self.is_op("+", "-"):
            sign = self.take()[1]
            return Unary(sign, self.unary(self.deeper(depth)))
        return self.power(depth)

    def power(self, depth: int) -> Node:
        base = self.atom(depth)
        if self.is_op("^"):
            self.take()
            return Power(base, self.unary(self.deeper(depth)))
        return base

    def atom(self, depth: int) -> Node:
        kind, text, position = self.take()
        if kind == "num":
            return Num(text)
        if kind == "name":
            if not self.is_op("("):
                return Name(text)
            self.take()
            inner = self.deeper(depth)
            args = [self.expression(inner)]
            while self.is_op(","):
                self.take()
                args.append(self.expression(inner))
            self.expect(")", f"to close the call of {text}")
            return Call(text, tuple(args))
        if text == "(":
            node = self.expression(self.deeper(depth))
            self.expect(")", f"to close the '(' at position {position}")
            return node
        raise CalcSyntaxError(f"unexpected {text!r} at position {position}")

    def expect(self, symbol: str, why: str) -> None:
        token = self.peek()
        if token is None:
            raise CalcSyntaxError(f"the expression ends where {symbol!r} is needed {why}")
        if token[0] != "op" or token[1] != symbol:
            raise CalcSyntaxError(
                f"expected {symbol!r} {why} but found {token[1]!r} at position {token[2]}"
            )
        self.index += 1


def parse(text: str) -> Node:
    """Parse an expression into the calculator's tree, or raise CalcSyntaxError for the model."""
    if len(text) > MAX_EXPRESSION_CHARS:
        raise CalcSyntaxError(
            f"the expression has {len(text)} characters; the limit is {MAX_EXPRESSION_CHARS}"
        )
    tokens = _tokens(text)
    if not tokens:
        raise CalcSyntaxError("the expression is empty")
    parser = _Parser(tokens, len(text))
    node = parser.expression(0)
    leftover = parser.peek()
    if leftover is not None:
        raise CalcSyntaxError(f"unexpected {leftover[1]!r} at position {leftover[2]}")
    return node
