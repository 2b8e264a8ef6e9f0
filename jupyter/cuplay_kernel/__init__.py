"""cuplay_kernel: a Jupyter kernel for cuplay. It runs `cuplay --serve` and
speaks its protocol (docs/formats.md): every command, table, chart and
message comes from cuplay itself; this package only carries them between
Jupyter's messages and cuplay's JSON lines."""
__version__ = "0.1.0"
