"""emx's experiment layer: run the simulator, declare experiments, reproduce and sweep.

    emx.sim.run(...)            one simulation -> Result
    emx.experiment              Experiment, Point, Run, Published
    emx.registry.select(names)  the declared experiments
    emx.runner.Runner           runs points with a cache and an executor
See docs/reproduce.md.
"""
