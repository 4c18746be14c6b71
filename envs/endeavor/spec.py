"""Endeavor's ``GameSpec`` (the rules text's game, docs/endeavor.md). No options."""

from encoders import endeavor as encoder
from envs.core.game import GameSpec
from envs.endeavor import rules, snapshot

SPEC = GameSpec(
    name="endeavor",
    min_players=2,
    max_players=4,
    num_actions=rules.NUM_ACTIONS,
    obs_size=encoder.OBS_SIZE,
    obs_high=encoder.OBS_HIGH,
    state_dtype=rules.STATE_DTYPE,
    init_game=rules.init_game,
    legal_mask_into=rules.legal_mask_into,
    apply_action=rules.apply_action,
    rewards_into=rules.rewards_into,
    reset_batch=rules.reset_batch,
    legal_masks_batch=rules.legal_masks_batch,
    step_batch=rules.step_batch,
    random_rollout_kernel=rules.random_rollout_kernel,
    encode_into=encoder.encode_into,
    encode_batch=encoder.encode_batch,
    action_to_string=snapshot.action_to_string,
    render=snapshot.render,
    to_dict=snapshot.to_dict,
    from_dict=snapshot.from_dict,
    docs="docs/endeavor.md",
)
