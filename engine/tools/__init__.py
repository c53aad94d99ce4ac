"""Jobs built on the live runtime that are not the live app: `fusecam bench` (bench,
bench_frames, bench_clips, profile_report, thread_cpu), `fusecam doctor` (doctor,
desktop_libs) and offline runs (`fusecam swap`: offline). The live runtime never imports
them (an import-linter contract)."""
