"""What users add from files: skills (``skills``), slash commands written in markdown
(``mdcommands``), both with front matter (``frontmatter``). None of them can grant a
permission: what they run goes through the session's gate like anything else."""
