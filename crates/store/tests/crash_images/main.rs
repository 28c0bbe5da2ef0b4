//! The store's in-process power-cut and kill-image test files, one binary (`cargo test -p
//! exaraid-store --test crash_images <file>::<test>`). Together because each asks every plan
//! of the process to run its steps one at a time in plan order
//! (`common::images_in_plan_order`, process-wide and for good), so which disks their images
//! hold does not change with the machine's load; the other files (`scenes`) keep the store's
//! per-OSS threads. Why one binary: see `tests/scenes/main.rs`.

#[path = "../common/mod.rs"]
mod common;
#[path = "../common/hooked.rs"]
mod hooked;
#[path = "../common/imaged.rs"]
mod imaged;
#[path = "../common/powercut.rs"]
mod powercut;
#[path = "../common/stale_cut.rs"]
mod stale_cut;

mod end_oss_dies_crash;
mod fail_during_end;
mod power_cut_client_write_stale_cache;
mod power_cut_client_write_stale_cache_more;
mod power_cut_destage_lost;
mod power_cut_out_of_order_model;
mod power_cut_out_of_order_probes;
mod power_cut_paths;
mod power_cut_rmw_write_unsynced_input;
mod power_cut_wcl_write_hole_keeps_acknowledged;
mod power_cut_window_parity;
mod r48b_reused_chunk_cut_write_crash_alone;
mod review_r45d_stale_block_under_a_cut_write;
mod review_r48a_two_lost_writes_under_a_rolled_cut_write;
mod review_r49b_lost_writes_beside_a_rolled_cut_write;
mod review_r49d_torn_parity_beside_a_stale_parity;
mod review_r50a_rolled_part_acked_in_part;
mod review_r52b_two_cut_writers_one_block;
mod review_r52c_unchecked_world_roll;
mod review_r52e_rmw_edge_block_lost_write_crash;
mod review_s30r_power_cut_several_wcl_writers;
mod review_s30r_raid5_wcl_power_cut_loses_acknowledged_stripe;
mod review_s31r_power_cut_delayed_window_and_flip;
mod review_s32r_power_cut_degraded_and_mixed;
mod review_s32r_wcl_crash_beside_failed_oss;
mod review_s33r_two_failed_osss_cut;
mod review_s34r_out_of_order_home_blocks;
mod s23c_overwrite_beside_stale_and_failed;
mod s24b_array_wcl_power_cut_full_tolerance;
mod s25c_confirm_by_versions_exactly_k;
mod s28c_stale_beside_running_parity_written_in_pieces;
mod s29c_stale_beside_recovery_killed_in_parity_rewrite;
mod s30c_stale_beside_xcode_parity_written_in_pieces;
mod s31b_stale_bytes_inside_one_segment_of_a_row_written_in_pieces;
mod s32a_stale_element_completable_by_one_version_beside_a_partial_parity;
mod s33f_stale_element_read_after_an_out_of_order_power_cut;
mod s33g_raid6_wcl_kill_beside_failed_column_0_image;
mod s34d_syncs_in_plan_order;
mod s34i_decode_beside_the_write_crcs_with_a_stale_column;
mod s35a_unchecked_decode_beside_a_stale_column;
mod s35f_failed_parity_oss_beside_a_stale_element_and_a_torn_cut_write;
mod s37b_rotten_cache_block_beside_a_landed_part_with_p_old;
mod s39c_journal_mark_without_fsync;
mod s39c_power_cut_with_journal_marks;
mod s44c_cache_witness_gaps;
mod s48b_stale_bytes_under_another_blocks_cut_range;
mod s49d_torn_parity_known_per_piece;
mod stale_beside_wide_cut_write;
mod stale_cache_at_full_tolerance;
mod window_timeout_crash_dead_disk;
mod window_timeout_settle;
