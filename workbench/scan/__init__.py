"""``workbench scan``: a parser run over a dataset of real generations, one verdict per row.

- ``verdicts.py``: the verdicts and the kinds of ``suspect``, and one row's result;
- ``row.py``: ``RowScanner``, the one pure, picklable row function every engine runs;
- ``suspects.py``: the checks of a parse that worked (markers left, traps, an empty message,
  tools, streaming);
- ``source.py``: reading the data (files, folders, saved datasets, Hub ids) with ``datasets``;
- ``local.py``: all cores of one machine (a process pool fed Arrow batches);
- ``on_ray.py``: a Ray cluster (Ray Data), writing the same rows;
- ``results.py``: the Parquet file of results and its metadata, and the cache of earlier scans;
- ``summary.py``: counts, rates, clusters and the slowest rows, on screen and as JSON;
- ``failures.py``: failing rows written as samples, and read back for ``workbench open --scan``.

UI-free: nothing here imports Textual; ``datasets``, ``pyarrow`` and ``ray`` are optional extras,
imported only where a scan needs them.
"""
