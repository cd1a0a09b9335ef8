#include "racepred/report/finding.hpp"

namespace racepred {

RaceKind race_kind(const Race& race) {
  if (!race.first.known()) return RaceKind::Unknown;
  const bool w1 = race.first.op == Op::Write;
  const bool w2 = race.second.op == Op::Write;
  if (w1 && w2) return RaceKind::WriteWrite;
  if (!w1 && !w2) return RaceKind::ReadRead;
  return w1 ? RaceKind::WriteRead : RaceKind::ReadWrite;
}

std::string_view race_kind_name(RaceKind kind) {
  switch (kind) {
    case RaceKind::WriteWrite:
      return "write-write";
    case RaceKind::WriteRead:
      return "write-read";
    case RaceKind::ReadWrite:
      return "read-write";
    case RaceKind::ReadRead:
      return "read-read";
    case RaceKind::Unknown:
      return "unknown";
  }
  return "unknown";
}

std::string_view confidence_name(Confidence c) {
  switch (c) {
    case Confidence::Reproduced:
      return "reproduced";
    case Confidence::Observed:
      return "observed";
    case Confidence::Witnessed:
      return "witnessed";
    case Confidence::Predicted:
      return "predicted";
    case Confidence::Possible:
      return "possible";
  }
  return "possible";
}

std::string_view confidence_sentence(Confidence c) {
  switch (c) {
    case Confidence::Reproduced:
      return "Reproduced: a new execution of the program, steered by racepred confirm, ran the two "
             "accesses back to back (its replay file runs it again).";
    case Confidence::Observed:
      return "Observed: the two accesses ran back to back in the recorded run, with nothing "
             "ordering them.";
    case Confidence::Witnessed:
      return "Witnessed: a schedule of this run that reaches the two accesses concurrently was "
             "built and checked (racepred check-witness checks it again).";
    case Confidence::Predicted:
      return "Predicted (sound engine): another schedule of this run, with every read seeing the "
             "same write, runs the two accesses concurrently (--witness builds and checks it).";
    case Confidence::Possible:
      return "Possible: this engine's heuristic flags the pair, but it may be a false alarm.";
  }
  return "";
}

std::string_view finding_kind_name(FindingKind kind) {
  switch (kind) {
    case FindingKind::DataRace:
      return "data-race";
    case FindingKind::ReadReadViolation:
      return "read-read-violation";
    case FindingKind::Deadlock:
      return "deadlock";
    case FindingKind::Failure:
      return "failure";
  }
  return "unknown";
}

FindingKind finding_kind_of(const Race& race) {
  return race_kind(race) == RaceKind::ReadRead ? FindingKind::ReadReadViolation
                                               : FindingKind::DataRace;
}

bool fails_run(FindingKind kind) {
  switch (kind) {
    case FindingKind::DataRace:
    case FindingKind::Deadlock:
    case FindingKind::Failure:
      return true;
    case FindingKind::ReadReadViolation:
      return false;
  }
  return true;
}

std::string_view failure_kind_name(FailureKind kind) {
  switch (kind) {
    case FailureKind::Assertion:
      return "assertion";
    case FailureKind::Crash:
      return "crash";
    case FailureKind::Hang:
      return "hang";
    case FailureKind::Deadlock:
      return "deadlock";
  }
  return "unknown";
}

}  // namespace racepred
