"""Byte units. Vendor card memory (memory_gb) is binary-ish: an "80 GB" HBM card holds about 80 GiB."""

GB = 1_000_000_000
GIB = 1 << 30
MIB = 1 << 20
KIB = 1 << 10
