"""One module per paper; each exports EXPERIMENTS (see emx.experiment)."""
