"""RS256 JSON Web Tokens for a Google service account's token exchange, with no dependency.

A service-account key file holds a PEM private key: PKCS#8 (``BEGIN PRIVATE KEY``, what
Google issues) or PKCS#1 (``BEGIN RSA PRIVATE KEY``). The signature is RSASSA-PKCS1-v1_5
over SHA-256 (RFC 8017 §8.2): the digest wrapped in its DER ``DigestInfo``, padded
``00 01 FF.. 00``, raised to the private exponent (with the CRT, as usual). The tests verify
our tokens with google-auth's verifier, the way the token endpoint checks them.

The key is the user's own and signing happens on their machine, so the modular
exponentiation's timing is not exposed to anyone who could exploit it.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re

_SHA256_DIGEST_INFO = bytes.fromhex("3031300d060960864801650304020105000420")
_RSA_OID = bytes.fromhex("2a864886f70d010101")
_PEM = re.compile(r"-----BEGIN ([A-Z ]+)-----(.*?)-----END \1-----", re.S)


class PrivateKeyError(ValueError):
    """The private key cannot be read (the message names no key material)."""


def _read_tlv(data: bytes, pos: int) -> tuple[int, bytes, int]:
    """One DER element at ``pos``: (tag, contents, position after it)."""
    if pos + 2 > len(data):
        raise PrivateKeyError("truncated DER element")
    tag = data[pos]
    length = data[pos + 1]
    pos += 2
    if length & 0x80:
        count = length & 0x7F
        if count == 0 or count > 4 or pos + count > len(data):
            raise PrivateKeyError("bad DER length")
        length = int.from_bytes(data[pos : pos + count], "big")
        pos += count
    end = pos + length
    if end > len(data):
        raise PrivateKeyError("DER element runs past the key")
    return tag, data[pos:end], end


def _sequence(data: bytes) -> list[tuple[int, bytes]]:
    tag, body, _ = _read_tlv(data, 0)
    if tag != 0x30:
        raise PrivateKeyError("expected a DER SEQUENCE")
    return _items(body)


def _items(body: bytes) -> list[tuple[int, bytes]]:
    items: list[tuple[int, bytes]] = []
    pos = 0
    while pos < len(body):
        item_tag, contents, pos = _read_tlv(body, pos)
        items.append((item_tag, contents))
    return items


class RsaKey:
    __slots__ = ("d", "dp", "dq", "n", "p", "q", "qinv")

    def __init__(self, n: int, d: int, p: int, q: int, dp: int, dq: int, qinv: int) -> None:
        self.n, self.d, self.p, self.q = n, d, p, q
        self.dp, self.dq, self.qinv = dp, dq, qinv

    def __repr__(self) -> str:
        return f"RsaKey({self.n.bit_length()} bits)"

    def sign_sha256(self, message: bytes) -> bytes:
        size = (self.n.bit_length() + 7) // 8
        digest_info = _SHA256_DIGEST_INFO + hashlib.sha256(message).digest()
        if size < len(digest_info) + 11:
            raise PrivateKeyError("RSA key too short for SHA-256 signatures")
        encoded = b"\x00\x01" + b"\xff" * (size - len(digest_info) - 3) + b"\x00" + digest_info
        m = int.from_bytes(encoded, "big")
        s1 = pow(m % self.p, self.dp, self.p)
        s2 = pow(m % self.q, self.dq, self.q)
        h = (self.qinv * (s1 - s2)) % self.p
        return (s2 + h * self.q).to_bytes(size, "big")


def _rsa_from_pkcs1(der: bytes) -> RsaKey:
    items = _sequence(der)
    if len(items) < 9 or any(tag != 0x02 for tag, _ in items[:9]):
        raise PrivateKeyError("not an RSA private key")
    n, _e, d, p, q, dp, dq, qinv = (int.from_bytes(v, "big") for _, v in items[1:9])
    return RsaKey(n, d, p, q, dp, dq, qinv)


def load_private_key(pem: str) -> RsaKey:
    found = _PEM.search(pem)
    if found is None:
        raise PrivateKeyError("no PEM private key found")
    label, body = found.group(1), found.group(2)
    try:
        der = base64.b64decode("".join(body.split()), validate=True)
    except ValueError as exc:
        raise PrivateKeyError("the PEM body is not base64") from exc
    if label == "RSA PRIVATE KEY":
        return _rsa_from_pkcs1(der)
    if label != "PRIVATE KEY":
        raise PrivateKeyError(f"unsupported PEM key type {label!r}")
    items = _sequence(der)
    if len(items) < 3 or items[2][0] != 0x04:
        raise PrivateKeyError("not a PKCS#8 private key")
    algorithm = _items(items[1][1]) if items[1][0] == 0x30 else []
    if not algorithm or algorithm[0][1] != _RSA_OID:
        raise PrivateKeyError("the private key is not an RSA key")
    return _rsa_from_pkcs1(items[2][1])


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def encode_rs256(claims: dict[str, object], key: RsaKey, key_id: str | None = None) -> str:
    header: dict[str, str] = {"alg": "RS256", "typ": "JWT"}
    if key_id:
        header["kid"] = key_id
    signing_input = (
        _b64url(json.dumps(header, separators=(",", ":")).encode())
        + "."
        + _b64url(json.dumps(claims, separators=(",", ":")).encode())
    )
    return signing_input + "." + _b64url(key.sign_sha256(signing_input.encode("ascii")))


__all__ = ["PrivateKeyError", "RsaKey", "encode_rs256", "load_private_key"]
