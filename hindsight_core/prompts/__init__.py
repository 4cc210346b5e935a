"""Prompts are data: one module per LLM task, each with a pure ``context -> messages`` function,
its response model and examples beside it. Pass your own function to override a prompt."""
