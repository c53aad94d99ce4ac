"""What the watermark says: the product, the format version and the day it was made.

96 bits: "Fusecam" in ASCII (56), the format version (8), the day as days since
2000-01-01 (16) and a CRC-16 over the rest (16). Read back by maximum likelihood over
every payload the format allows, so the CRC also corrects the few bits a compressor
flips; the fixed product name must read nearly right, or there is no payload.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from functools import cache

import numpy as np
from numpy.typing import NDArray

PRODUCT = "Fusecam"
VERSION = 1
EPOCH = dt.date(2000, 1, 1)
PAYLOAD_BITS = 96
_CRC_POLY = 0x1021  # CRC-16/CCITT
# Of the 64 bits of product name and version, how many must read right: a sanity check
# (an unmarked picture gets about half by chance). The detector already correlated
# against these bits (engine.watermark.pattern.known_template): a frame passes its
# confidence threshold only where they are there.
MIN_HEAD_AGREEMENT = 44
# The days a mark can carry: none before this format was made, none more than a year
# past the checking machine's clock (a clock set wrong). Reading the day among these
# ~1100 rather than all 65536 the bits could say makes a faint mark's day read right.
FIRST_DAY = dt.date(2026, 1, 1)
_DAYS_AHEAD = 366


@dataclass(frozen=True, slots=True)
class Payload:
    product: str
    version: int
    day: dt.date

    def describe(self) -> str:
        return f"{self.product} v{self.version}, {self.day.isoformat()}"


def today_payload(today: dt.date | None = None) -> Payload:
    return Payload(PRODUCT, VERSION, today or dt.datetime.now(dt.UTC).date())


def crc16(data: bytes) -> int:
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ _CRC_POLY) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return crc


def _body(payload: Payload) -> bytes:
    name = payload.product.encode("ascii")
    if len(name) != 7:
        raise ValueError(f"product name must be 7 ASCII characters, not {payload.product!r}")
    days = (payload.day - EPOCH).days
    if not 0 <= days < 1 << 16 or not 0 <= payload.version < 256:
        raise ValueError(f"payload out of range: {payload}")
    return name + bytes([payload.version]) + days.to_bytes(2, "big")


def encode(payload: Payload) -> NDArray[np.uint8]:
    """The payload as 96 bits (0/1), most significant first."""
    body = _body(payload)
    data = body + crc16(body).to_bytes(2, "big")
    return np.unpackbits(np.frombuffer(data, dtype=np.uint8))


FIXED_BITS = 64  # product name and version: the same in every mark of this format


def fixed_bits() -> NDArray[np.uint8]:
    return encode(Payload(PRODUCT, VERSION, EPOCH))[:FIXED_BITS]


def _crc_bits(bodies: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """CRC-16 bits of many 80-bit bodies at once (rows of 0/1). A CRC is affine over
    GF(2): the CRC of the all-zero body, flipped by each set bit's own contribution."""
    zero = crc16(bytes(10))
    flips = np.array(
        [crc16((1 << (79 - i)).to_bytes(10, "big")) ^ zero for i in range(80)], dtype=np.uint32
    )
    crc = np.full(bodies.shape[0], zero, dtype=np.uint32)
    for i in np.flatnonzero(bodies.any(axis=0)):
        crc ^= np.where(bodies[:, i] > 0, flips[i], 0).astype(np.uint32)
    shifts = np.arange(15, -1, -1, dtype=np.uint32)
    return ((crc[:, None] >> shifts) & 1).astype(np.uint8)


@cache
def _codebook() -> NDArray[np.int8]:
    """Every payload this format can carry (product and version fixed, any day), as ±1
    rows of 96: the decoder picks the one the read bits agree with best."""
    head = encode(Payload(PRODUCT, VERSION, EPOCH))[:64]
    days = np.arange(1 << 16, dtype=np.uint32)
    day_bits = ((days[:, None] >> np.arange(15, -1, -1, dtype=np.uint32)) & 1).astype(np.uint8)
    bodies = np.hstack([np.broadcast_to(head, (days.size, 64)), day_bits])
    bits = np.hstack([bodies, _crc_bits(bodies)])
    return (bits.astype(np.int8) * 2 - 1).astype(np.int8)


@dataclass(frozen=True, slots=True)
class Reading:
    payload: Payload | None  # None: the product name and version were not there
    head_bits: int  # of the 64 bits of name and version, how many read right
    agreeing_bits: int  # of all 96, how many the payload shares with what was read (0: none)


def decode_soft(soft: NDArray[np.float64]) -> Reading:
    """The payload nearest to the read bit values (`soft`: 96 signed strengths).

    Maximum likelihood over every payload the format allows (days from FIRST_DAY to a
    year past today): a few bits lost to
    compression are corrected by the rest (the CRC makes payloads of nearby days
    differ in many bits). Most of the fixed product name and version must read as
    they are (MIN_HEAD_AGREEMENT of their 64 bits), or there is no payload."""
    if soft.shape != (PAYLOAD_BITS,):
        raise ValueError(f"expected {PAYLOAD_BITS} values, got {soft.shape}")
    book = _codebook()
    head = int((np.sign(soft[:64]) == book[0, :64]).sum())
    if head < MIN_HEAD_AGREEMENT:
        return Reading(None, head, 0)
    first = (FIRST_DAY - EPOCH).days
    last = (dt.datetime.now(dt.UTC).date() - EPOCH).days + _DAYS_AHEAD
    tail = book[first : last + 1, 64:].astype(np.float32)
    best = first + int(np.argmax(tail @ soft[64:].astype(np.float32)))
    agreeing = int((np.sign(soft) == book[best]).sum())
    return Reading(Payload(PRODUCT, VERSION, EPOCH + dt.timedelta(days=best)), head, agreeing)
