"""Deep mode: the tool registry and the think → act → observe loop's pure parts.

No Django here: ``tools`` describes and checks tool calls, ``loop`` holds the budgets, the prompts
and how a conversation is replayed from stored steps. Running a tool (which stores sources and
evidence) is ``pipeline.runner.deep_tools``; the loop's driver is ``pipeline.runner.deep``.
"""
