// Faults a test injects into an executed run to prove that the run's checks catch them: each one
// makes a correct program see what a broken fabric, rank or schedule would give it, and the run
// must then fail. All are off by default; only tests set them (through `scaleout run`, which reads
// them from SCALEOUT_* variables for the ranks' processes: cli/run_command.cpp).
#pragma once

namespace scaleout::exec {

struct Faults {
  // This rank kills itself (SIGKILL) at the start of this step.
  int kill_rank = -1;
  int kill_step = 0;
  // This worker's gradient gets one wrong element after this step's
  // exchange, as a corrupted receive would leave it (the check must count it; the run fails).
  int corrupt_rank = -1;
  int corrupt_step = 0;
  // This rank stops itself (SIGSTOP) at the start of this step.
  int stop_rank = -1;
  int stop_step = 0;
  // In a model-parallel plan, this rank runs its first two forwards in the wrong order
  // (exec/broken_schedule.hpp; the stage after it must count the micro-batches it did not expect;
  // the run fails).
  int break_schedule_rank = -1;
  // In a model-parallel plan on CPUs, this rank's fabric lands its first receive of the second
  // step elsewhere (exec/stale_receive_fabric.hpp): its slot keeps the first step's data, the
  // checks must count it and the run fails. On GPUs the checked iterations are first steps of their
  // own: it does not apply.
  int stale_receive_rank = -1;
  // The compressed exchange runs without error feedback while its reference keeps it
  // (the check must find the difference from the second step on; the run fails).
  bool drop_error_feedback = false;
  // The servers apply pushes without delay compensation (lambda 0) while the check
  // expects the plan's, so that the exact check must fail.
  bool drop_delay_compensation = false;
};

}  // namespace scaleout::exec
