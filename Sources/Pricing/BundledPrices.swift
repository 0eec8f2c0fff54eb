// Written by script/prices-cut; do not edit by hand.

/// LiteLLM's model prices cut to the coding agents' models: 104 models, US dollars per token.
/// Taken 2026-12-07 from litellm 1.110.2 on PyPI (litellm/model_prices_and_context_window_backup.json).
/// Gaps the table has and the provider's page fills:
/// - `claude-sonnet-4-5` (and its dated id): Anthropic's pricing page, long context pricing for
///   Claude Sonnet 4.5 (https://docs.claude.com/en/docs/about-claude/pricing); the table's Bedrock
///   twin anthropic.claude-sonnet-4-5-20250929-v1:0 has the same rates.
enum BundledPrices {
    static let asOf = "2026-12-07"
    static let source = "litellm 1.110.2 on PyPI (litellm/model_prices_and_context_window_backup.json)"
    static let json = #"""
        {
         "claude-fable-5": {
          "cache_creation_input_token_cost": 1.25e-05,
          "cache_creation_input_token_cost_above_1hr": 2e-05,
          "cache_read_input_token_cost": 1e-06,
          "input_cost_per_token": 1e-05,
          "output_cost_per_token": 5e-05
         },
         "claude-fable-5-1": {
          "cache_creation_input_token_cost": 1.25e-05,
          "cache_creation_input_token_cost_above_1hr": 2e-05,
          "cache_read_input_token_cost": 2.5e-07,
          "input_cost_per_token": 1e-05,
          "output_cost_per_token": 5e-05
         },
         "claude-haiku-4-5": {
          "cache_creation_input_token_cost": 1.25e-06,
          "cache_creation_input_token_cost_above_1hr": 2e-06,
          "cache_read_input_token_cost": 1e-07,
          "input_cost_per_token": 1e-06,
          "output_cost_per_token": 5e-06
         },
         "claude-haiku-4-5-20251001": {
          "cache_creation_input_token_cost": 1.25e-06,
          "cache_creation_input_token_cost_above_1hr": 2e-06,
          "cache_read_input_token_cost": 1e-07,
          "input_cost_per_token": 1e-06,
          "output_cost_per_token": 5e-06
         },
         "claude-haiku-5-5": {
          "cache_creation_input_token_cost": 1.25e-07,
          "cache_creation_input_token_cost_above_1hr": 2e-07,
          "cache_read_input_token_cost": 1e-08,
          "input_cost_per_token": 1e-07,
          "output_cost_per_token": 5e-07
         },
         "claude-mythos-5": {
          "cache_creation_input_token_cost": 1.25e-05,
          "cache_creation_input_token_cost_above_1hr": 2e-05,
          "cache_read_input_token_cost": 1e-06,
          "input_cost_per_token": 1e-05,
          "output_cost_per_token": 5e-05
         },
         "claude-mythos-5-1": {
          "cache_creation_input_token_cost": 1.25e-05,
          "cache_creation_input_token_cost_above_1hr": 2e-05,
          "cache_read_input_token_cost": 2.5e-07,
          "input_cost_per_token": 1e-05,
          "output_cost_per_token": 5e-05
         },
         "claude-mythos-preview": {
          "cache_creation_input_token_cost": 1.25e-05,
          "cache_creation_input_token_cost_above_1hr": 2e-05,
          "cache_read_input_token_cost": 1e-06,
          "input_cost_per_token": 1e-05,
          "output_cost_per_token": 5e-05
         },
         "claude-opus-4-5": {
          "cache_creation_input_token_cost": 6.25e-06,
          "cache_creation_input_token_cost_above_1hr": 1e-05,
          "cache_read_input_token_cost": 5e-07,
          "input_cost_per_token": 5e-06,
          "output_cost_per_token": 2.5e-05
         },
         "claude-opus-4-5-20251101": {
          "cache_creation_input_token_cost": 6.25e-06,
          "cache_creation_input_token_cost_above_1hr": 1e-05,
          "cache_read_input_token_cost": 5e-07,
          "input_cost_per_token": 5e-06,
          "output_cost_per_token": 2.5e-05
         },
         "claude-opus-4-6": {
          "cache_creation_input_token_cost": 6.25e-06,
          "cache_creation_input_token_cost_above_1hr": 1e-05,
          "cache_read_input_token_cost": 5e-07,
          "input_cost_per_token": 5e-06,
          "output_cost_per_token": 2.5e-05
         },
         "claude-opus-4-6-20260205": {
          "cache_creation_input_token_cost": 6.25e-06,
          "cache_creation_input_token_cost_above_1hr": 1e-05,
          "cache_read_input_token_cost": 5e-07,
          "input_cost_per_token": 5e-06,
          "output_cost_per_token": 2.5e-05
         },
         "claude-opus-4-7": {
          "cache_creation_input_token_cost": 6.25e-06,
          "cache_creation_input_token_cost_above_1hr": 1e-05,
          "cache_read_input_token_cost": 5e-07,
          "input_cost_per_token": 5e-06,
          "output_cost_per_token": 2.5e-05
         },
         "claude-opus-4-7-20260416": {
          "cache_creation_input_token_cost": 6.25e-06,
          "cache_creation_input_token_cost_above_1hr": 1e-05,
          "cache_read_input_token_cost": 5e-07,
          "input_cost_per_token": 5e-06,
          "output_cost_per_token": 2.5e-05
         },
         "claude-opus-4-8": {
          "cache_creation_input_token_cost": 6.25e-06,
          "cache_creation_input_token_cost_above_1hr": 1e-05,
          "cache_read_input_token_cost": 5e-07,
          "input_cost_per_token": 5e-06,
          "output_cost_per_token": 2.5e-05
         },
         "claude-opus-5": {
          "cache_creation_input_token_cost": 6.25e-06,
          "cache_creation_input_token_cost_above_1hr": 1e-05,
          "cache_read_input_token_cost": 5e-07,
          "input_cost_per_token": 5e-06,
          "output_cost_per_token": 2.5e-05
         },
         "claude-opus-5-5": {
          "cache_creation_input_token_cost": 5e-06,
          "cache_creation_input_token_cost_above_1hr": 8e-06,
          "cache_read_input_token_cost": 2e-07,
          "input_cost_per_token": 4e-06,
          "output_cost_per_token": 2e-05
         },
         "claude-sonnet-4-5": {
          "cache_creation_input_token_cost": 3.75e-06,
          "cache_creation_input_token_cost_above_1hr": 6e-06,
          "cache_creation_input_token_cost_above_1hr_above_200k_tokens": 1.2e-05,
          "cache_creation_input_token_cost_above_200k_tokens": 7.5e-06,
          "cache_read_input_token_cost": 3e-07,
          "cache_read_input_token_cost_above_200k_tokens": 6e-07,
          "input_cost_per_token": 3e-06,
          "input_cost_per_token_above_200k_tokens": 6e-06,
          "output_cost_per_token": 1.5e-05,
          "output_cost_per_token_above_200k_tokens": 2.25e-05
         },
         "claude-sonnet-4-5-20250929": {
          "cache_creation_input_token_cost": 3.75e-06,
          "cache_creation_input_token_cost_above_1hr": 6e-06,
          "cache_creation_input_token_cost_above_1hr_above_200k_tokens": 1.2e-05,
          "cache_creation_input_token_cost_above_200k_tokens": 7.5e-06,
          "cache_read_input_token_cost": 3e-07,
          "cache_read_input_token_cost_above_200k_tokens": 6e-07,
          "input_cost_per_token": 3e-06,
          "input_cost_per_token_above_200k_tokens": 6e-06,
          "output_cost_per_token": 1.5e-05,
          "output_cost_per_token_above_200k_tokens": 2.25e-05
         },
         "claude-sonnet-4-6": {
          "cache_creation_input_token_cost": 3.75e-06,
          "cache_creation_input_token_cost_above_1hr": 6e-06,
          "cache_read_input_token_cost": 3e-07,
          "input_cost_per_token": 3e-06,
          "output_cost_per_token": 1.5e-05
         },
         "claude-sonnet-5": {
          "cache_creation_input_token_cost": 2.5e-06,
          "cache_creation_input_token_cost_above_1hr": 4e-06,
          "cache_read_input_token_cost": 2e-07,
          "input_cost_per_token": 2e-06,
          "output_cost_per_token": 1e-05
         },
         "claude-sonnet-5-5": {
          "cache_creation_input_token_cost": 2.5e-06,
          "cache_creation_input_token_cost_above_1hr": 4e-06,
          "cache_read_input_token_cost": 1e-07,
          "input_cost_per_token": 2e-06,
          "output_cost_per_token": 1e-05
         },
         "gemini-2.5-computer-use-preview-10-2025": {
          "input_cost_per_token": 1.25e-06,
          "input_cost_per_token_above_200k_tokens": 2.5e-06,
          "output_cost_per_token": 1e-05,
          "output_cost_per_token_above_200k_tokens": 1.5e-05
         },
         "gemini-2.5-flash": {
          "cache_read_input_token_cost": 3e-08,
          "input_cost_per_token": 3e-07,
          "output_cost_per_reasoning_token": 2.5e-06,
          "output_cost_per_token": 2.5e-06
         },
         "gemini-2.5-flash-lite": {
          "cache_read_input_token_cost": 1e-08,
          "input_cost_per_token": 1e-07,
          "output_cost_per_reasoning_token": 4e-07,
          "output_cost_per_token": 4e-07
         },
         "gemini-2.5-flash-lite-preview-09-2025": {
          "cache_read_input_token_cost": 1e-08,
          "input_cost_per_token": 1e-07,
          "output_cost_per_reasoning_token": 4e-07,
          "output_cost_per_token": 4e-07
         },
         "gemini-2.5-flash-preview-09-2025": {
          "cache_read_input_token_cost": 3e-08,
          "input_cost_per_token": 3e-07,
          "output_cost_per_reasoning_token": 2.5e-06,
          "output_cost_per_token": 2.5e-06
         },
         "gemini-2.5-pro": {
          "cache_read_input_token_cost": 1.25e-07,
          "cache_read_input_token_cost_above_200k_tokens": 2.5e-07,
          "input_cost_per_token": 1.25e-06,
          "input_cost_per_token_above_200k_tokens": 2.5e-06,
          "output_cost_per_token": 1e-05,
          "output_cost_per_token_above_200k_tokens": 1.5e-05
         },
         "gemini-2.5-pro-preview-tts": {
          "cache_read_input_token_cost": 1.25e-07,
          "input_cost_per_token": 1e-06,
          "output_cost_per_token": 2e-05
         },
         "gemini-3-flash-preview": {
          "cache_read_input_token_cost": 5e-08,
          "input_cost_per_token": 5e-07,
          "output_cost_per_reasoning_token": 3e-06,
          "output_cost_per_token": 3e-06
         },
         "gemini-3.1-flash-lite": {
          "cache_read_input_token_cost": 2.5e-08,
          "input_cost_per_token": 2.5e-07,
          "output_cost_per_reasoning_token": 1.5e-06,
          "output_cost_per_token": 1.5e-06
         },
         "gemini-3.1-flash-lite-preview": {
          "cache_read_input_token_cost": 2.5e-08,
          "input_cost_per_token": 2.5e-07,
          "output_cost_per_reasoning_token": 1.5e-06,
          "output_cost_per_token": 1.5e-06
         },
         "gemini-3.1-pro-preview": {
          "cache_read_input_token_cost": 2e-07,
          "cache_read_input_token_cost_above_200k_tokens": 4e-07,
          "input_cost_per_token": 2e-06,
          "input_cost_per_token_above_200k_tokens": 4e-06,
          "output_cost_per_token": 1.2e-05,
          "output_cost_per_token_above_200k_tokens": 1.8e-05
         },
         "gemini-3.1-pro-preview-customtools": {
          "cache_read_input_token_cost": 2e-07,
          "cache_read_input_token_cost_above_200k_tokens": 4e-07,
          "input_cost_per_token": 2e-06,
          "input_cost_per_token_above_200k_tokens": 4e-06,
          "output_cost_per_token": 1.2e-05,
          "output_cost_per_token_above_200k_tokens": 1.8e-05
         },
         "gemini-3.5-flash": {
          "cache_read_input_token_cost": 1.5e-07,
          "input_cost_per_token": 1.5e-06,
          "output_cost_per_reasoning_token": 9e-06,
          "output_cost_per_token": 9e-06
         },
         "gemini-3.5-flash-lite": {
          "cache_read_input_token_cost": 3e-08,
          "input_cost_per_token": 3e-07,
          "output_cost_per_reasoning_token": 2.5e-06,
          "output_cost_per_token": 2.5e-06
         },
         "gemini-3.6-flash": {
          "cache_read_input_token_cost": 7.5e-08,
          "input_cost_per_token": 7.5e-07,
          "output_cost_per_reasoning_token": 3.75e-06,
          "output_cost_per_token": 3.75e-06
         },
         "gemini-3.7-flash": {
          "cache_read_input_token_cost": 7.5e-08,
          "input_cost_per_token": 7.5e-07,
          "output_cost_per_reasoning_token": 3.75e-06,
          "output_cost_per_token": 3.75e-06
         },
         "gemini-3.8-flash": {
          "cache_read_input_token_cost": 7.5e-08,
          "input_cost_per_token": 7.5e-07,
          "output_cost_per_reasoning_token": 3.75e-06,
          "output_cost_per_token": 3.75e-06
         },
         "gemini-3.8-flash-cyber": {
          "cache_read_input_token_cost": 1.5e-07,
          "input_cost_per_token": 1.5e-06,
          "output_cost_per_reasoning_token": 7.5e-06,
          "output_cost_per_token": 7.5e-06
         },
         "gpt-4.1": {
          "cache_read_input_token_cost": 5e-07,
          "input_cost_per_token": 2e-06,
          "output_cost_per_token": 8e-06
         },
         "gpt-4.1-2025-04-14": {
          "cache_read_input_token_cost": 5e-07,
          "input_cost_per_token": 2e-06,
          "output_cost_per_token": 8e-06
         },
         "gpt-4.1-mini": {
          "cache_read_input_token_cost": 1e-07,
          "input_cost_per_token": 4e-07,
          "output_cost_per_token": 1.6e-06
         },
         "gpt-4.1-mini-2025-04-14": {
          "cache_read_input_token_cost": 1e-07,
          "input_cost_per_token": 4e-07,
          "output_cost_per_token": 1.6e-06
         },
         "gpt-4.1-nano": {
          "cache_read_input_token_cost": 2.5e-08,
          "input_cost_per_token": 1e-07,
          "output_cost_per_token": 4e-07
         },
         "gpt-4.1-nano-2025-04-14": {
          "cache_read_input_token_cost": 2.5e-08,
          "input_cost_per_token": 1e-07,
          "output_cost_per_token": 4e-07
         },
         "gpt-5": {
          "cache_read_input_token_cost": 1.25e-07,
          "input_cost_per_token": 1.25e-06,
          "output_cost_per_token": 1e-05
         },
         "gpt-5-2025-08-07": {
          "cache_read_input_token_cost": 1.25e-07,
          "input_cost_per_token": 1.25e-06,
          "output_cost_per_token": 1e-05
         },
         "gpt-5-chat": {
          "cache_read_input_token_cost": 1.25e-07,
          "input_cost_per_token": 1.25e-06,
          "output_cost_per_token": 1e-05
         },
         "gpt-5-chat-latest": {
          "cache_read_input_token_cost": 1.25e-07,
          "input_cost_per_token": 1.25e-06,
          "output_cost_per_token": 1e-05
         },
         "gpt-5-codex": {
          "cache_read_input_token_cost": 1.25e-07,
          "input_cost_per_token": 1.25e-06,
          "output_cost_per_token": 1e-05
         },
         "gpt-5-mini": {
          "cache_read_input_token_cost": 2.5e-08,
          "input_cost_per_token": 2.5e-07,
          "output_cost_per_token": 2e-06
         },
         "gpt-5-mini-2025-08-07": {
          "cache_read_input_token_cost": 2.5e-08,
          "input_cost_per_token": 2.5e-07,
          "output_cost_per_token": 2e-06
         },
         "gpt-5-nano": {
          "cache_read_input_token_cost": 5e-09,
          "input_cost_per_token": 5e-08,
          "output_cost_per_token": 4e-07
         },
         "gpt-5-nano-2025-08-07": {
          "cache_read_input_token_cost": 5e-09,
          "input_cost_per_token": 5e-08,
          "output_cost_per_token": 4e-07
         },
         "gpt-5-pro": {
          "input_cost_per_token": 1.5e-05,
          "output_cost_per_token": 0.00012
         },
         "gpt-5-pro-2025-10-06": {
          "input_cost_per_token": 1.5e-05,
          "output_cost_per_token": 0.00012
         },
         "gpt-5-search-api": {
          "cache_read_input_token_cost": 1.25e-07,
          "input_cost_per_token": 1.25e-06,
          "output_cost_per_token": 1e-05
         },
         "gpt-5-search-api-2025-10-14": {
          "cache_read_input_token_cost": 1.25e-07,
          "input_cost_per_token": 1.25e-06,
          "output_cost_per_token": 1e-05
         },
         "gpt-5.1": {
          "cache_read_input_token_cost": 1.25e-07,
          "input_cost_per_token": 1.25e-06,
          "output_cost_per_token": 1e-05
         },
         "gpt-5.1-2025-11-13": {
          "cache_read_input_token_cost": 1.25e-07,
          "input_cost_per_token": 1.25e-06,
          "output_cost_per_token": 1e-05
         },
         "gpt-5.1-chat-latest": {
          "cache_read_input_token_cost": 1.25e-07,
          "input_cost_per_token": 1.25e-06,
          "output_cost_per_token": 1e-05
         },
         "gpt-5.1-codex": {
          "cache_read_input_token_cost": 1.25e-07,
          "input_cost_per_token": 1.25e-06,
          "output_cost_per_token": 1e-05
         },
         "gpt-5.1-codex-max": {
          "cache_read_input_token_cost": 1.25e-07,
          "input_cost_per_token": 1.25e-06,
          "output_cost_per_token": 1e-05
         },
         "gpt-5.1-codex-mini": {
          "cache_read_input_token_cost": 2.5e-08,
          "input_cost_per_token": 2.5e-07,
          "output_cost_per_token": 2e-06
         },
         "gpt-5.2": {
          "cache_read_input_token_cost": 1.75e-07,
          "input_cost_per_token": 1.75e-06,
          "output_cost_per_token": 1.4e-05
         },
         "gpt-5.2-2025-12-11": {
          "cache_read_input_token_cost": 1.75e-07,
          "input_cost_per_token": 1.75e-06,
          "output_cost_per_token": 1.4e-05
         },
         "gpt-5.2-chat-latest": {
          "cache_read_input_token_cost": 1.75e-07,
          "input_cost_per_token": 1.75e-06,
          "output_cost_per_token": 1.4e-05
         },
         "gpt-5.2-codex": {
          "cache_read_input_token_cost": 1.75e-07,
          "input_cost_per_token": 1.75e-06,
          "output_cost_per_token": 1.4e-05
         },
         "gpt-5.2-pro": {
          "input_cost_per_token": 2.1e-05,
          "output_cost_per_token": 0.000168
         },
         "gpt-5.2-pro-2025-12-11": {
          "input_cost_per_token": 2.1e-05,
          "output_cost_per_token": 0.000168
         },
         "gpt-5.3-chat-latest": {
          "cache_read_input_token_cost": 1.75e-07,
          "input_cost_per_token": 1.75e-06,
          "output_cost_per_token": 1.4e-05
         },
         "gpt-5.3-codex": {
          "cache_read_input_token_cost": 1.75e-07,
          "input_cost_per_token": 1.75e-06,
          "output_cost_per_token": 1.4e-05
         },
         "gpt-5.4": {
          "cache_read_input_token_cost": 2.5e-07,
          "input_cost_per_token": 2.5e-06,
          "output_cost_per_token": 1.5e-05
         },
         "gpt-5.4-2026-03-05": {
          "cache_read_input_token_cost": 2.5e-07,
          "input_cost_per_token": 2.5e-06,
          "output_cost_per_token": 1.5e-05
         },
         "gpt-5.4-mini": {
          "cache_read_input_token_cost": 7.5e-08,
          "input_cost_per_token": 7.5e-07,
          "output_cost_per_token": 4.5e-06
         },
         "gpt-5.4-mini-2026-03-17": {
          "cache_read_input_token_cost": 7.5e-08,
          "input_cost_per_token": 7.5e-07,
          "output_cost_per_token": 4.5e-06
         },
         "gpt-5.4-nano": {
          "cache_read_input_token_cost": 2e-08,
          "input_cost_per_token": 2e-07,
          "output_cost_per_token": 1.25e-06
         },
         "gpt-5.4-nano-2026-03-17": {
          "cache_read_input_token_cost": 2e-08,
          "input_cost_per_token": 2e-07,
          "output_cost_per_token": 1.25e-06
         },
         "gpt-5.4-pro": {
          "input_cost_per_token": 3e-05,
          "output_cost_per_token": 0.00018
         },
         "gpt-5.4-pro-2026-03-05": {
          "input_cost_per_token": 3e-05,
          "output_cost_per_token": 0.00018
         },
         "gpt-5.5": {
          "cache_read_input_token_cost": 5e-07,
          "input_cost_per_token": 5e-06,
          "output_cost_per_token": 3e-05
         },
         "gpt-5.5-2026-04-23": {
          "cache_read_input_token_cost": 5e-07,
          "input_cost_per_token": 5e-06,
          "output_cost_per_token": 3e-05
         },
         "gpt-5.5-cyber": {
          "cache_read_input_token_cost": 1.25e-06,
          "input_cost_per_token": 1.25e-05,
          "output_cost_per_token": 7.5e-05
         },
         "gpt-5.5-cyber-preview": {
          "cache_read_input_token_cost": 1.25e-06,
          "input_cost_per_token": 1.25e-05,
          "output_cost_per_token": 7.5e-05
         },
         "gpt-5.5-pro": {
          "input_cost_per_token": 3e-05,
          "output_cost_per_token": 0.00018
         },
         "gpt-5.5-pro-2026-04-23": {
          "input_cost_per_token": 3e-05,
          "output_cost_per_token": 0.00018
         },
         "gpt-5.6": {
          "cache_creation_input_token_cost": 5e-06,
          "cache_read_input_token_cost": 4e-07,
          "input_cost_per_token": 4e-06,
          "output_cost_per_token": 2e-05
         },
         "gpt-5.6-cyber": {
          "cache_creation_input_token_cost": 1.5625e-05,
          "cache_read_input_token_cost": 1.25e-06,
          "input_cost_per_token": 1.25e-05,
          "output_cost_per_token": 7.5e-05
         },
         "gpt-5.6-luna": {
          "cache_creation_input_token_cost": 2.5e-07,
          "cache_read_input_token_cost": 2e-08,
          "input_cost_per_token": 2e-07,
          "output_cost_per_token": 1.2e-06
         },
         "gpt-5.6-sol": {
          "cache_creation_input_token_cost": 5e-06,
          "cache_read_input_token_cost": 4e-07,
          "input_cost_per_token": 4e-06,
          "output_cost_per_token": 2e-05
         },
         "gpt-5.6-terra": {
          "cache_creation_input_token_cost": 2.5e-06,
          "cache_read_input_token_cost": 2e-07,
          "input_cost_per_token": 2e-06,
          "output_cost_per_token": 1.2e-05
         },
         "o3": {
          "cache_read_input_token_cost": 5e-07,
          "input_cost_per_token": 2e-06,
          "output_cost_per_token": 8e-06
         },
         "o3-2025-04-16": {
          "cache_read_input_token_cost": 5e-07,
          "input_cost_per_token": 2e-06,
          "output_cost_per_token": 8e-06
         },
         "o3-deep-research": {
          "cache_read_input_token_cost": 2.5e-06,
          "input_cost_per_token": 1e-05,
          "output_cost_per_token": 4e-05
         },
         "o3-deep-research-2025-06-26": {
          "cache_read_input_token_cost": 2.5e-06,
          "input_cost_per_token": 1e-05,
          "output_cost_per_token": 4e-05
         },
         "o3-mini": {
          "cache_read_input_token_cost": 5.5e-07,
          "input_cost_per_token": 1.1e-06,
          "output_cost_per_token": 4.4e-06
         },
         "o3-mini-2025-01-31": {
          "cache_read_input_token_cost": 5.5e-07,
          "input_cost_per_token": 1.1e-06,
          "output_cost_per_token": 4.4e-06
         },
         "o3-pro": {
          "input_cost_per_token": 2e-05,
          "output_cost_per_token": 8e-05
         },
         "o3-pro-2025-06-10": {
          "input_cost_per_token": 2e-05,
          "output_cost_per_token": 8e-05
         },
         "o4-mini": {
          "cache_read_input_token_cost": 2.75e-07,
          "input_cost_per_token": 1.1e-06,
          "output_cost_per_token": 4.4e-06
         },
         "o4-mini-2025-04-16": {
          "cache_read_input_token_cost": 2.75e-07,
          "input_cost_per_token": 1.1e-06,
          "output_cost_per_token": 4.4e-06
         },
         "o4-mini-deep-research": {
          "cache_read_input_token_cost": 5e-07,
          "input_cost_per_token": 2e-06,
          "output_cost_per_token": 8e-06
         },
         "o4-mini-deep-research-2025-06-26": {
          "cache_read_input_token_cost": 5e-07,
          "input_cost_per_token": 2e-06,
          "output_cost_per_token": 8e-06
         }
        }
        """#
}
