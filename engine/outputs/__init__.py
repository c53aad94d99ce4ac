"""Where published frames go: the delay line, virtual camera, recorder and network stream,
run together by `OutputSet`."""
