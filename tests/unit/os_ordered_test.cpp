// os_ordered_test.cpp — the ordered pool: whatever order the workers finish in, every slot's
// output (its pieces, then its last piece, then done) reaches the main thread in the order
// the slots were pushed; large outputs held back by the budget still arrive, in order; and a
// consumer that says stop stops everything.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "os/ordered.h"

namespace {

struct Piece {
  std::string bytes;
  size_t size() const { return bytes.size(); }
  bool empty() const { return bytes.empty(); }
};

struct Slot : os::OrderedSlot<Piece> {
  uint64_t id = 0;
  int count = 0;            // pieces the work publishes before its last one
  size_t piece_bytes = 16;  // the size of each
  int delay_us = 0;         // how long the work takes
  int expand = 0;           // slots its Expand step gives after it (ids id * 100 + 1...)
};

struct Worker {
  int done = 0;
  bool main = false;         // the main thread's helper
  std::atomic<int> busy{0};  // threads in a work with this Worker: never more than one
};

using Pool = os::Ordered<Slot, Worker>;

// A piece's bytes name its slot and its place: "<id>:<k>", padded to the size wanted.
std::string piece(uint64_t id, int k, size_t size) {
  std::string s = std::to_string(id) + ":" + std::to_string(k);
  if (s.size() < size) s.resize(size, '.');
  return s;
}

struct Delivered {
  std::vector<std::string> taken;  // "<id>:<k>" in the order the main thread took them
  std::vector<uint64_t> done;      // ids in the order done() was called
  int by_main = 0;                 // expanded slots the main thread worked itself
  int main_ring = 0;               // slots of the ring the main thread worked (work_one)
  int main_big = 0;                // those of them that published past a slot's share
  int main_ring_after = 0;         // of main_ring, those worked after an expansion was taken
  int shared = 0;                  // works that found their Worker in use by another thread
};

Delivered run(std::vector<std::unique_ptr<Slot>> slots, unsigned threads,
              size_t stop_after = SIZE_MAX) {
  std::vector<Worker> workers(threads);
  Worker helper{0, true};
  Delivered r;
  Pool* self = nullptr;
  const std::thread::id main = std::this_thread::get_id();
  std::atomic<int> shared{0};
  bool expanded = false;  // main thread only
  Pool pool(
      workers,
      [&](Slot& s, Worker& w) {
        if (w.busy.fetch_add(1) != 0) ++shared;
        if (s.delay_us) std::this_thread::sleep_for(std::chrono::microseconds(s.delay_us));
        for (int k = 0; k < s.count; ++k) self->publish(s, Piece{piece(s.id, k, s.piece_bytes)});
        s.last = Piece{piece(s.id, s.count, 1)};
        ++w.done;
        if (w.main) ++r.by_main;  // only the main thread writes these
        if (!w.main && std::this_thread::get_id() == main) {
          ++r.main_ring;
          if (expanded) ++r.main_ring_after;
          if (s.count * s.piece_bytes > Pool::kSlotShare) ++r.main_big;
        }
        w.busy.fetch_sub(1);
      },
      [&](Slot&, Piece& p) {
        r.taken.push_back(p.bytes.substr(0, p.bytes.find('.')));
        return r.taken.size() < stop_after;
      },
      [&](Slot& s) {
        r.done.push_back(s.id);
        return true;
      });
  self = &pool;
  pool.expand_with(
      [&](Slot& s) {
        std::vector<std::unique_ptr<Slot>> more;
        if (s.expand) expanded = true;
        for (int j = 1; j <= s.expand; ++j) {
          auto e = std::make_unique<Slot>();
          e->id = s.id * 100 + static_cast<uint64_t>(j);
          e->count = s.count;
          e->piece_bytes = s.piece_bytes;
          e->delay_us = s.delay_us;
          more.push_back(std::move(e));
        }
        return more;
      },
      helper);
  for (auto& s : slots) pool.push(std::move(s));
  pool.finish();
  r.shared = shared.load();
  return r;
}

// What the main thread must take: every piece ("<id>:<k>") and every done, in order.
struct Expected {
  std::vector<std::string> taken;
  std::vector<uint64_t> done;
};

// A slot for run(), and what it must deliver: its pieces, then those of each slot its Expand
// step gives (ids id * 100 + 1...), each with as many pieces.
void add_slot(std::vector<std::unique_ptr<Slot>>& slots, Expected& want, uint64_t id, int count,
              size_t piece_bytes, int delay_us, int expand) {
  auto s = std::make_unique<Slot>();
  s->id = id;
  s->count = count;
  s->piece_bytes = piece_bytes;
  s->delay_us = delay_us;
  s->expand = expand;
  for (int j = 0; j <= expand; ++j) {
    const uint64_t e = j == 0 ? id : id * 100 + static_cast<uint64_t>(j);
    for (int k = 0; k <= count; ++k) want.taken.push_back(piece(e, k, 0));
    want.done.push_back(e);
  }
  slots.push_back(std::move(s));
}

TEST(Ordered, ManyWorkersFinishingOutOfOrderDeliverInPushOrder) {
  std::mt19937 rng(5);
  std::vector<std::unique_ptr<Slot>> slots;
  std::vector<std::string> want_taken;
  std::vector<uint64_t> want_done;
  const uint64_t n = 3000;  // many times the window of slots in flight
  for (uint64_t id = 0; id < n; ++id) {
    auto s = std::make_unique<Slot>();
    s->id = id;
    s->count = rng() % 5 == 0 ? static_cast<int>(rng() % 4) : 0;
    s->delay_us = rng() % 10 == 0 ? static_cast<int>(rng() % 300) : 0;  // a few slow ones
    s->work = rng() % 20 != 0;  // some slots carry only output, like a walk's errors
    if (!s->work) {
      s->count = 0;
      s->last = Piece{piece(id, 0, 1)};
    }
    for (int k = 0; k <= s->count; ++k) want_taken.push_back(piece(id, k, 0));
    want_done.push_back(id);
    slots.push_back(std::move(s));
  }
  Delivered r = run(std::move(slots), 4);
  EXPECT_EQ(r.taken, want_taken);
  EXPECT_EQ(r.done, want_done);
}

TEST(Ordered, LargeOutputsHeldByTheBudgetStillArriveInOrder) {
  // Each slot publishes more than its share and all of them together more than the budget:
  // workers behind the head must wait, and the head must still be drained.
  std::vector<std::unique_ptr<Slot>> slots;
  std::vector<std::string> want;
  for (uint64_t id = 0; id < 40; ++id) {
    auto s = std::make_unique<Slot>();
    s->id = id;
    s->count = 8;
    s->piece_bytes = Pool::kPiece * 2;
    s->delay_us = id % 3 == 0 ? 2000 : 0;
    for (int k = 0; k <= s->count; ++k) want.push_back(piece(id, k, 0));
    slots.push_back(std::move(s));
  }
  Delivered r = run(std::move(slots), 4);
  EXPECT_EQ(r.taken, want);
}

// Slots an Expand step gives after a slot are delivered right after it, in their order,
// before the next slot of the ring, whoever works them: idle workers, or the main thread when
// every worker is held back by the budget behind them (the slots after each expanded one
// publish more than the budget); a stop among them ends it all.
TEST(Ordered, ExpandedSlotsArriveRightAfterTheirSlot) {
  std::mt19937 rng(9);
  int by_main = 0;
  for (int round = 0; round < 30; ++round) {
    std::vector<std::unique_ptr<Slot>> slots;
    Expected x;
    for (uint64_t id = 1; id <= 30; ++id) {
      const bool big = rng() % 2 == 0;
      const int count = big ? 6 : static_cast<int>(rng() % 3);
      const int delay = rng() % 4 == 0 ? 1000 : 0;
      const int expand = rng() % 4 == 0 ? 1 + static_cast<int>(rng() % 4) : 0;
      add_slot(slots, x, id, count, big ? Pool::kPiece * 4 : 16, delay, expand);
    }
    std::vector<std::string>& want = x.taken;
    const std::vector<uint64_t>& want_done = x.done;
    // Every third round the consumer says stop somewhere: what came before is all there is.
    const size_t stop_after = round % 3 == 2 ? 1 + rng() % want.size() : SIZE_MAX;
    Delivered r = run(std::move(slots), 2 + round % 3, stop_after);
    if (stop_after != SIZE_MAX) {
      want.resize(stop_after);
      ASSERT_EQ(r.taken, want) << "round " << round;
      continue;
    }
    ASSERT_EQ(r.taken, want) << "round " << round;
    ASSERT_EQ(r.done, want_done) << "round " << round;
    ASSERT_EQ(r.shared, 0) << "round " << round;
    by_main += r.by_main;
  }
  RecordProperty("expanded slots the main thread worked", by_main);
  EXPECT_GT(by_main, 0);  // the path that keeps them going behind held-back workers was taken
}

// Where the main thread would wait for room (or for the end), it works the next unclaimed
// slot itself: output still arrives in order, also when its slot publishes past its share
// while slots before it are unfinished (it delivers those first, waiting for their workers,
// who may be held back by the budget themselves); and a stop still ends everything.
TEST(Ordered, TheMainThreadWorksWhereItWouldWait) {
  std::mt19937 rng(13);
  int main_ring = 0, main_big = 0;
  for (int round = 0; round < 12; ++round) {
    std::vector<std::unique_ptr<Slot>> slots;
    Expected x;
    for (uint64_t id = 0; id < 1500; ++id) {  // several windows
      const bool big = rng() % 16 == 0;
      const int count = big ? 4 : static_cast<int>(rng() % 2);
      const int delay = rng() % 8 == 0 ? static_cast<int>(rng() % 200) : 0;
      add_slot(slots, x, id, count, big ? Pool::kPiece * 2 : 16, delay, 0);
    }
    std::vector<std::string>& want = x.taken;
    const size_t stop_after = round % 4 == 3 ? 1 + rng() % want.size() : SIZE_MAX;
    Delivered r = run(std::move(slots), 2 + round % 2, stop_after);
    if (stop_after != SIZE_MAX) want.resize(stop_after);
    ASSERT_EQ(r.taken, want) << "round " << round;
    ASSERT_EQ(r.shared, 0) << "round " << round;
    main_ring += r.main_ring;
    main_big += r.main_big;
  }
  RecordProperty("ring slots the main thread worked", main_ring);
  RecordProperty("of them past their share", main_big);
  EXPECT_GT(main_ring, 0);
  EXPECT_GT(main_big, 0);
}

// Once an Expand step gives work (the rest of a large file, in parts), the main thread only
// delivers it in order, and the last Worker gets a thread for it: every worker's thread takes
// parts.
TEST(Ordered, ExpandedWorkGetsEveryWorkersThread) {
  std::vector<Worker> workers(2);
  Worker helper{0, true};
  std::mutex mu;
  std::set<std::thread::id> part_threads;
  const std::thread::id main = std::this_thread::get_id();
  int parts_taken = 0;
  Pool pool(
      workers,
      [&](Slot& s, Worker&) {
        if (s.id >= 100) {  // a part: slow enough for both threads to be busy at once
          std::this_thread::sleep_for(std::chrono::milliseconds(2));
          std::lock_guard lk(mu);
          if (std::this_thread::get_id() != main) part_threads.insert(std::this_thread::get_id());
        }
        s.last = Piece{piece(s.id, 0, 1)};
      },
      [&](Slot&, Piece&) { return true; },
      [&](Slot& s) {
        if (s.id >= 100) ++parts_taken;
        return true;
      });
  pool.expand_with(
      [](Slot& s) {
        std::vector<std::unique_ptr<Slot>> more;
        if (s.id == 1)
          for (uint64_t j = 1; j <= 12; ++j) {
            auto e = std::make_unique<Slot>();
            e->id = 100 + j;
            more.push_back(std::move(e));
          }
        return more;
      },
      helper);
  for (uint64_t id = 0; id < 4; ++id) {
    auto s = std::make_unique<Slot>();
    s->id = id;
    pool.push(std::move(s));
  }
  pool.finish();
  EXPECT_EQ(parts_taken, 12);
  EXPECT_EQ(part_threads.size(), 2u);  // the thread started for the main thread's Worker too
}

// The last Worker's thread takes expanded slots only: once an expansion is delivered the main
// thread works ring slots with that Worker again (so N threads run, not N + 1), never at the
// same time as that thread; output still arrives in order, expansions and big outputs among
// the slots (the main thread's own slot may deliver an expansion while it holds the Worker).
TEST(Ordered, AfterAnExpansionTheMainThreadWorksTheRingAgain) {
  std::mt19937 rng(17);
  int after = 0;
  for (int round = 0; round < 8; ++round) {
    std::vector<std::unique_ptr<Slot>> slots;
    Expected x;
    for (uint64_t id = 1; id <= 1200; ++id) {
      const bool big = rng() % 20 == 0;
      const int count = big ? 5 : static_cast<int>(rng() % 2);
      const int delay = rng() % 4 == 0 ? static_cast<int>(rng() % 300) : 0;
      const int expand = id % 200 == 2 ? 2 + static_cast<int>(rng() % 6) : 0;
      add_slot(slots, x, id, count, big ? Pool::kPiece * 2 : 16, delay, expand);
    }
    const std::vector<std::string>& want = x.taken;
    Delivered r = run(std::move(slots), 2 + round % 2);
    ASSERT_EQ(r.taken, want) << "round " << round;
    ASSERT_EQ(r.shared, 0) << "round " << round;
    after += r.main_ring_after;
  }
  RecordProperty("ring slots the main thread worked after an expansion", after);
  EXPECT_GT(after, 0);
}

TEST(Ordered, AConsumerThatSaysStopStopsEverything) {
  std::vector<std::unique_ptr<Slot>> slots;
  for (uint64_t id = 0; id < 1000; ++id) {
    auto s = std::make_unique<Slot>();
    s->id = id;
    slots.push_back(std::move(s));
  }
  Delivered r = run(std::move(slots), 3, 10);
  ASSERT_EQ(r.taken.size(), 10u);  // nothing is taken after the consumer said stop
  for (size_t i = 0; i < r.taken.size(); ++i) EXPECT_EQ(r.taken[i], piece(i, 0, 0));
  EXPECT_EQ(r.done.size(), 9u);  // done() of the tenth slot is not called
}

// One worker: every slot's work runs on the pushing thread itself, between pushes, each
// slot's output taken before the next slot is pushed; large outputs and a stop behave as
// with threads.
TEST(Ordered, OneWorkerWorksOnThePushingThread) {
  std::vector<Worker> workers(1);
  const std::thread::id main = std::this_thread::get_id();
  std::vector<std::string> taken;
  size_t pushed = 0, off_thread = 0, late = 0;
  Pool* self = nullptr;
  Pool pool(
      workers,
      [&](Slot& s, Worker&) {
        if (std::this_thread::get_id() != main) ++off_thread;
        for (int k = 0; k < s.count; ++k) self->publish(s, Piece{piece(s.id, k, s.piece_bytes)});
        s.last = Piece{piece(s.id, s.count, 1)};
      },
      [&](Slot& s, Piece& p) {
        if (s.id + 1 != pushed) ++late;  // taken after a later slot was pushed
        taken.push_back(p.bytes.substr(0, p.bytes.find('.')));
        return taken.size() < 500;
      },
      [&](Slot&) { return true; });
  self = &pool;
  std::vector<std::string> want;
  for (uint64_t id = 0; id < 1000 && !pool.stopped(); ++id) {
    auto s = std::make_unique<Slot>();
    s->id = id;
    s->count = static_cast<int>(id % 3);
    s->piece_bytes = id % 7 == 0 ? (300 << 10) : 16;
    for (int k = 0; k <= s->count; ++k) want.push_back(piece(id, k, 1).substr(0, piece(id, k, 1).find('.')));
    ++pushed;
    pool.push(std::move(s));
  }
  pool.finish();
  EXPECT_EQ(off_thread, 0u);
  EXPECT_EQ(late, 0u);
  ASSERT_EQ(taken.size(), 500u);
  want.resize(500);
  EXPECT_EQ(taken, want);
}

}  // namespace
