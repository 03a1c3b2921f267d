"""Layer 5: the outside world. The command line (cli), CSV recordings (recording), plots (plot, optional
matplotlib) and the progress bar (progress); modules are imported on demand, so ``fmu-mbs --help`` stays fast."""
