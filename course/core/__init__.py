"""The ground floor: what every other package of the course stands on, and nothing above it.

- :mod:`~course.core.errors`: the one-line errors a user's mistake ends in (exit status 2);
- :mod:`~course.core.paths`: where things are: the cache, the build folder, the package's data files;
- :mod:`~course.core.io`: files written whole or not at all, outputs checked and held before a run;
- :mod:`~course.core.checkpoints`: checkpoint files and the identity of the run that wrote one;
- :mod:`~course.core.settings`: the ``full`` / ``smoke`` profile;
- :mod:`~course.core.edition`: the edition, English or Chinese, and the words figures and tables use in it;
- :mod:`~course.core.fields`: the checks of a config's fields, one line per bad value;
- :mod:`~course.core.devices`: ``cpu`` / ``cuda`` and the memory a run will need;
- :mod:`~course.core.distributed`: DistributedDataParallel under torchrun;
- :mod:`~course.core.parallel`: independent runs side by side, one per core;
- :mod:`~course.core.divergence`: a run that diverged, stopped before it is saved;
- :mod:`~course.core.progress`: progress bars and the progress file of a long run;
- :mod:`~course.core.runtime`: how torch's CPU threads wait, set before torch is imported;
- :mod:`~course.core.lazy`: names a package imports on first use.
"""
