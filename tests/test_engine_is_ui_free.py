"""The engine stays UI-free: importing it (and using it) never loads Textual."""

import subprocess
import sys


def test_engine_imports_no_textual():
    code = (
        "import sys, workbench, workbench.engine, workbench.store.files\n"
        # the template views, the round trip and the analysis the TUI runs: UI-free too
        "import workbench.engine.template.highlights, workbench.engine.template.outline, workbench.engine.template.replay\n"
        "import workbench.engine.chat_template.draft, workbench.engine.chat_template.roundtrip, workbench.engine.regex_source\n"
        "import workbench.live.analysis, workbench.live.process, workbench.live.child, workbench.jobs.migration, workbench.store.prompts, workbench.store.goldens, workbench.jobs.probes, workbench.store.chat_template_files\n"
        # the scan's row function and engines run where no terminal is (a pool's workers, a cluster)
        "import workbench.scan.job, workbench.scan.row, workbench.scan.local, workbench.scan.on_ray, workbench.scan.failures\n"
        "workbench.trace('<think>x</think>y', {'type': 'object', 'properties': {'c': {'type': 'string'}}})\n"
        "workbench.validate({'type': 'object'})\n"
        "bad = sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.'))\n"
        "assert not bad, bad\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
