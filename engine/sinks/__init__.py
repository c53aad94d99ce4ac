"""Consumers of published frames: recorder, virtual camera, network stream."""
