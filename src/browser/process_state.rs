//! What Linux's /proc says of a process: running, ending (killed, exiting, a zombie) or gone.
//!
//! Reading it costs two small file reads and no message to the process, so the session manager can
//! tell that a Chromium of ours still runs without a CDP round trip (which queues behind whatever
//! the browser is doing: contexts being opened or disposed), and `owned_dir` whether a directory's
//! owner is alive. A SIGKILL shows at once: kill(2) marks it pending before it returns, well before
//! the dying browser's CDP connection closes.

/// A process as /proc shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProcessState {
    Running,
    /// A fatal signal is pending, it is exiting, or it is a zombie waiting to be reaped.
    Ending,
    /// No such process.
    Gone,
}

/// PF_EXITING in the task's flags (`stat` field 9): the process has begun to exit.
const PF_EXITING: u64 = 0x4;
/// SIGKILL's bit in the pending-signal masks of `status`.
const SIGKILL_PENDING: u64 = 1 << (9 - 1);

/// The state of `pid`, or `None` where /proc cannot tell (not Linux).
pub fn of(pid: u32) -> Option<ProcessState> {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return std::path::Path::new("/proc/self/stat").exists().then_some(ProcessState::Gone);
    };
    // A process can disappear between the two reads: then it is gone.
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    Some(parse(&stat, &status))
}

fn parse(stat: &str, status: &str) -> ProcessState {
    // The fields after the command name, which is in parentheses and may itself hold spaces.
    let fields: Vec<&str> =
        stat.rsplit_once(')').map(|(_, rest)| rest.split_whitespace().collect()).unwrap_or_default();
    let (Some(state), Some(flags)) = (fields.first(), fields.get(6).and_then(|f| f.parse::<u64>().ok())) else {
        return ProcessState::Gone;
    };
    let killed = status.lines().any(|line| {
        let pending = line.strip_prefix("SigPnd:").or_else(|| line.strip_prefix("ShdPnd:"));
        pending
            .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
            .is_some_and(|mask| mask & SIGKILL_PENDING != 0)
    });
    if matches!(*state, "Z" | "X" | "x") || flags & PF_EXITING != 0 || killed {
        ProcessState::Ending
    } else {
        ProcessState::Running
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_with_sigkill_pending_exiting_or_a_zombie_is_ending() {
        let stat = |state: &str, flags: u64| format!("4242 (chromium (x)) {state} 1 4242 4242 0 -1 {flags} 0 0 0 0");
        let status = |shared: &str| format!("Name:\tchromium\nSigPnd:\t0000000000000000\nShdPnd:\t{shared}\n");
        assert_eq!(parse(&stat("S", 0x400100), &status("0000000000000000")), ProcessState::Running);
        assert_eq!(parse(&stat("S", 0x400100), &status("0000000000000100")), ProcessState::Ending, "SIGKILL sent");
        assert_eq!(parse(&stat("R", 0x400104), &status("0000000000000000")), ProcessState::Ending, "exiting");
        assert_eq!(parse(&stat("Z", 0x400100), &status("0000000000000000")), ProcessState::Ending, "a zombie");
        assert_eq!(parse(&stat("S", 0x400100), &status("0000000000004000")), ProcessState::Running, "SIGTERM only");
        assert_eq!(parse("garbage", ""), ProcessState::Gone);
    }

    #[test]
    fn this_process_runs_and_a_pid_above_pid_max_is_gone() {
        assert_eq!(of(std::process::id()), Some(ProcessState::Running));
        // Far above Linux's pid_max: no process has it.
        assert_eq!(of(4_194_305), Some(ProcessState::Gone));
    }

    #[test]
    fn a_child_killed_reads_ending_before_it_is_reaped() {
        let mut child = std::process::Command::new("sleep").arg("60").spawn().expect("sleep runs");
        assert_eq!(of(child.id()), Some(ProcessState::Running));
        child.kill().expect("kill");
        assert_eq!(of(child.id()), Some(ProcessState::Ending), "right after kill(2), unreaped");
        child.wait().expect("reaped");
        assert_eq!(of(child.id()), Some(ProcessState::Gone));
    }
}
