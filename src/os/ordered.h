// ordered.h — work done in parallel, its output delivered in the order it was submitted: a
// fixed pool of worker threads over a ring of slots. seek searches files in walk order with
// it, so its output is the walk order however the workers finish.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace os {

// The part of a slot the pool owns; a caller's slot type derives from it (and must not hide
// these names with its own). `Piece_` is a unit of output: `size()` is the bytes it holds,
// counted against the pool's budget; `empty()` says it carries nothing.
template <class Piece_>
struct OrderedSlot {
  using Piece = Piece_;
  bool work = true;  // false: nothing for a worker to do; `last` is delivered as it stands
  uint64_t seq = 0;  // the slot's place in submission order
  // Output. `pieces` (under the pool's lock) carries a large output while it is being made;
  // `last` is the rest, handed over with `done`. A vector, not a deque: an empty deque still
  // allocates, and most slots (small files) never publish a piece.
  std::vector<Piece> pieces;
  size_t held = 0;  // bytes in `pieces`
  std::atomic<bool> pending{false};
  Piece last;
  std::atomic<bool> done{false};
};

// The main thread pushes slots in order and takes their output back in that order: the
// pieces published while the work ran, then `last`, then `done`. The common path takes no
// lock: a worker claims the next slot with one atomic step and hands its output back with one
// atomic store; a lock and a wake-up are spent only when a thread is actually asleep. A worker
// whose output grows large hands it over in pieces, and stops while the output held for the
// main thread passes a budget (unless its slot is the head), so memory stays bounded by the
// budget, the window and each worker's own buffers, never by the size of one slot's output.
// `Worker` is each thread's own state (scratch buffers, a matcher), handed to its work.
//
// With N workers, N - 1 threads start and the main thread is the N-th: where it would wait
// (a full window, the end) it works the next unclaimed slot itself, with the last Worker. So
// N cores run N threads, never a third thread on two cores taking turns with the others (a
// search of the kernel tree on two cores: 1,100 switches between threads against 20, and 3.5%
// faster). Once an Expand step gives work, the last Worker gets a thread that works expanded
// slots only and sleeps between expansions (side_loop()): the main thread works ring slots
// with that Worker again once the expansion is delivered (`last_busy_` says who holds it).
template <class Slot, class Worker>
class Ordered {
 public:
  using Piece = typename Slot::Piece;
  // Work runs on a worker thread, once per slot with `work` set. Take and Done run on the
  // main thread (inside push() and finish()): Take for each piece and then for `last`, Done
  // after them; false from either stops everything (the workers are cancelled, stopped()
  // holds, later pushes are dropped).
  using Work = std::function<void(Slot&, Worker&)>;
  using Take = std::function<bool(Slot&, Piece&)>;
  using Done = std::function<bool(Slot&)>;
  // Main thread, after Done of a slot: more work that belongs right after it in the output
  // (the rest of a large file its work found), or none. Those slots are run by idle workers
  // ahead of the ring, or by the main thread itself with `helper` (so that they go on while
  // every worker is held back by the budget), and delivered in their order before the next
  // slot of the ring.
  using Expand = std::function<std::vector<std::unique_ptr<Slot>>(Slot&)>;

  static constexpr size_t kWindow = 256;
  static constexpr size_t kBudget = 8 << 20;
  static constexpr size_t kPiece = 64 << 10;       // the size at which work should publish a piece
  static constexpr size_t kSlotShare = 256 << 10;  // one slot's pieces not yet taken
  static constexpr uint64_t kWakeBatch = 16;
  static constexpr uint64_t kRoom = 64;  // a full window waits until this many slots are done

  // The threads start with the second slot: one file is searched on the main thread, which
  // saves a named file the threads' start-up (seek on one small file answers in about as long
  // as a thread takes to start and its stack to fault in). With one worker, no thread starts.
  Ordered(std::vector<Worker>& workers, Work work, Take take, Done done)
      : work_(std::move(work)),
        take_(std::move(take)),
        done_(std::move(done)),
        ring_(kWindow),
        workers_(workers) {}
  ~Ordered() {
    {
      std::lock_guard lk(mu_);
      closing_ = true;
      cancel_ = true;
    }
    work_cv_.notify_all();
    side_cv_.notify_all();
    room_cv_.notify_all();
    for (auto& t : threads_) t.join();
    if (side_thread_.joinable()) side_thread_.join();
  }

  // Sets the Expand step and the main thread's own worker state for it (before the first push).
  void expand_with(Expand expand, Worker& helper) {
    expand_ = std::move(expand);
    helper_ = &helper;
  }

  bool stopped() const { return stopped_; }  // main thread: Take or Done said stop
  // Worker side: nothing more will be taken, so a long piece of work may end early.
  bool cancelled() const { return cancel_.load(std::memory_order_relaxed); }
  const std::atomic<bool>* cancel_flag() const { return &cancel_; }

  void push(std::unique_ptr<Slot> s) {
    if (pushed_ - head_ >= kWindow) drain(Mode::UntilRoom);
    if (stopped_) return;
    if (!s->work) s->done.store(true);
    s->seq = pushed_;
    ring_[pushed_ % kWindow] = std::move(s);
    pushed_.store(pushed_ + 1);
    // One worker: the work runs here, between pushes. A second thread would only add a
    // hand-over per slot (a futex wake and a wait for the scheduler, which on a busy machine
    // cost more than a small file's search) to overlap the walk with the search.
    if (workers_.size() == 1) {
      run_here();
      drain(Mode::Ready);
      return;
    }
    if (threads_.empty() && pushed_ >= 2) start_threads();
    // Sleeping workers are woken for a batch, not for each slot: a wake-up costs more than
    // a small slot's work (searching a small file). kick() wakes them for less whenever the
    // main thread waits.
    if (pushed_ - claimed_ >= kWakeBatch) kick();
    drain(Mode::Ready);
  }

  // Wakes the sleeping workers if there is work they have not taken.
  void kick() {
    if (idle_.load() > 0 && claimed_.load() < pushed_.load()) {
      std::lock_guard lk(mu_);
      work_cv_.notify_all();
    }
  }

  void finish() {
    if (threads_.empty()) run_here();
    {
      std::lock_guard lk(mu_);
      closing_ = true;
    }
    work_cv_.notify_all();
    drain(Mode::All);
  }

  // Worker side: hands a piece of a large output to the main thread while the work goes on.
  void publish(Slot& s, Piece&& p) {
    if (p.empty()) return;
    if (std::this_thread::get_id() == main_id_) {
      // The main thread's own work in order (its slot is the head, taken at once); a worker
      // never reads here_, which the main thread sets while workers run (expand()).
      if (here_) {
        if (!stopped_ && !take_(s, p)) stop();
        return;
      }
      // A slot of the ring it took (work_one): it cannot wait for itself to drain, so past
      // the slot's share or the budget it delivers the slots before this one (waiting for
      // their workers, as drain does) and then this one's pieces so far.
      bool over;
      {
        std::lock_guard lk(mu_);
        buffered_ += p.size();
        s.held += p.size();
        s.pieces.push_back(std::move(p));
        s.pending.store(true);
        over = s.held > kSlotShare || buffered_ > kBudget;
      }
      if (over) {
        drain(Mode::Until, s.seq);
        if (!stopped_ && head_ == s.seq && !take_pieces(s)) stop();
      }
      return;
    }
    std::unique_lock lk(mu_);
    buffered_ += p.size();
    s.held += p.size();
    s.pieces.push_back(std::move(p));
    s.pending.store(true);
    if (main_waiting_.load()) main_cv_.notify_one();
    // Wait while this slot holds more than its share, or while all slots hold more than the
    // budget and this one cannot be drained before those ahead of it.
    auto full = [&] {
      return !cancel_ && (s.held > kSlotShare || (buffered_ > kBudget && head_.load() != s.seq));
    };
    if (full()) {
      ++blocked_;
      main_cv_.notify_one();  // the main thread must drain the head for this one to go on
      room_cv_.wait(lk, [&] { return !full(); });
      --blocked_;
    }
  }

 private:
  enum class Mode { Ready, UntilRoom, All, Until };

  // The threads, one for each Worker but the last, which is the main thread's (work_one).
  void start_threads() {
    for (size_t k = 0; k + 1 < workers_.size(); ++k)
      threads_.emplace_back([this, &w = workers_[k]] { loop(w); });
  }

  // Main thread, where it would wait: works the next slot no worker has claimed, if any.
  bool work_one() {
    if (last_busy_.exchange(true)) return false;  // the side thread works with the Worker
    uint64_t i = claimed_.load();
    do {
      if (i >= pushed_.load()) {
        release_last();
        return false;
      }
    } while (!claimed_.compare_exchange_weak(i, i + 1));
    kick();  // the slots after it are the sleeping workers' to take meanwhile
    Slot& s = *ring_[i % kWindow];
    if (s.work && !cancel_) work_(s, workers_.back());
    release_last();
    s.done.store(true);
    return true;
  }

  // The last Worker is free again: the side thread may take expanded slots with it.
  void release_last() {
    last_busy_.store(false);
    if (side_thread_.joinable() && side_waiting_.load() > 0) {
      std::lock_guard lk(mu_);
      side_cv_.notify_one();
    }
  }

  // The last Worker's thread once an expansion has given work: it takes expanded slots while
  // the main thread does not hold that Worker, and sleeps otherwise, so that between
  // expansions N threads run on N cores, the main thread one of them.
  void side_loop(Worker& w) {
    for (;;) {
      Slot* s;
      {
        std::unique_lock lk(mu_);
        side_cv_.wait(lk, [&] { return cancel_ || (!side_.empty() && !last_busy_.load()); });
        if (cancel_) return;
        if (last_busy_.exchange(true)) continue;  // the main thread took it meanwhile
        s = side_.front();
        side_.pop_front();
        side_waiting_.store(side_.size());
      }
      if (!cancel_) work_(*s, w);
      last_busy_.store(false);
      s->done.store(true);
      if (main_waiting_.load()) {
        std::lock_guard lk(mu_);
        main_cv_.notify_one();
      }
    }
  }

  // A slot an expansion queued that nobody has taken, or null; `only`: that one or none.
  Slot* take_side(Slot* only = nullptr) {
    std::lock_guard lk(mu_);
    if (side_.empty() || (only && side_.front() != only)) return nullptr;
    Slot* s = side_.front();
    side_.pop_front();
    side_waiting_.store(side_.size());
    return s;
  }

  void loop(Worker& w) {
    for (;;) {
      if (side_waiting_.load() > 0) {
        if (Slot* s = take_side()) {
          if (!cancel_) work_(*s, w);
          s->done.store(true);
          if (main_waiting_.load()) {
            std::lock_guard lk(mu_);
            main_cv_.notify_one();
          }
          continue;
        }
      }
      uint64_t i = claimed_.load();
      if (cancel_) return;
      if (i < pushed_.load()) {
        if (!claimed_.compare_exchange_weak(i, i + 1)) continue;
        Slot& s = *ring_[i % kWindow];
        if (s.work) work_(s, w);
        const uint64_t seq = s.seq;
        s.done.store(true);  // the slot is the main thread's from here on
        // The main thread sleeps until its target slot is done; any slot wakes it while a
        // worker is held back, since the head it may be waiting on could be this one.
        if (main_waiting_.load() && (wait_seq_.load() == seq || blocked_.load() > 0)) {
          std::lock_guard lk(mu_);
          main_cv_.notify_one();
        }
        continue;
      }
      std::unique_lock lk(mu_);
      // With an Expand step, a slot not yet delivered may still give more work: stay (the
      // destructor's cancel ends the wait).
      auto over = [&] {
        return closing_ && claimed_.load() >= pushed_.load() &&
               (!expand_ || head_.load() >= pushed_.load());
      };
      if (over()) return;
      ++idle_;
      work_cv_.wait(lk, [&] {
        return cancel_ || over() || claimed_.load() < pushed_.load() || !side_.empty();
      });
      --idle_;
    }
  }

  // Without threads (at most one slot was pushed): the work runs here, in order.
  void run_here() {
    here_ = true;
    while (!stopped_ && claimed_ < pushed_) {
      Slot& s = *ring_[claimed_ % kWindow];
      claimed_.store(claimed_ + 1);
      if (s.work && !workers_.empty()) work_(s, workers_.front());
      s.done.store(true);
    }
  }

  void stop() {
    stopped_ = true;
    {
      std::lock_guard lk(mu_);
      cancel_ = true;
    }
    work_cv_.notify_all();
    room_cv_.notify_all();
  }

  // Takes a slot's pieces, if any; false when the consumer said stop.
  bool take_pieces(Slot& s) {
    if (!s.pending.load()) return true;
    std::vector<Piece> taken;
    {
      std::lock_guard lk(mu_);
      taken.swap(s.pieces);
      s.pending.store(false);
      s.held = 0;
      for (auto& p : taken) buffered_ -= p.size();
      if (blocked_) room_cv_.notify_all();
    }
    for (auto& p : taken)
      if (!take_(s, p)) return false;
    return true;
  }

  // Delivers the slots done, in order; Until: up to `until` (not it), waiting for each.
  void drain(Mode mode, uint64_t until = 0) {
    while (!stopped_ && head_ < pushed_) {
      if (mode == Mode::Until && head_ == until) return;
      Slot& head = *ring_[head_ % kWindow];
      if (!take_pieces(head)) return stop();
      if (head.done.load()) {
        if (!take_pieces(head)) return stop();
        bool go = take_(head, head.last) && done_(head) && (!expand_ || expand(head));
        head_.store(head_ + 1);
        if (blocked_.load()) {
          std::lock_guard lk(mu_);
          room_cv_.notify_all();
        }
        if (!go) return stop();
        continue;
      }
      if (mode == Mode::Ready || (mode == Mode::UntilRoom && pushed_ - head_ < kWindow)) return;
      // Rather than wait, the main thread searches too: never a second slot inside its own
      // (its drain there is Until, and it holds the last Worker).
      if (mode != Mode::Until && !threads_.empty() && work_one()) continue;
      // A full window waits for a batch of room, not one slot, so that the threads do not
      // wake each other for every slot; the head's pieces still wake it.
      uint64_t target = head_;
      if (mode == Mode::UntilRoom && !ring_[(head_ + kRoom - 1) % kWindow]->done.load())
        target = head_ + kRoom - 1;
      Slot& t = *ring_[target % kWindow];
      kick();
      std::unique_lock lk(mu_);
      wait_seq_.store(target);
      main_waiting_.store(true);
      main_cv_.wait(
          lk, [&] { return t.done.load() || head.done.load() || head.pending.load() || cancel_; });
      main_waiting_.store(false);
    }
  }

  // The slots Expand gave for `head`, queued for the workers and delivered in order here;
  // one that no worker has taken when its turn comes is run here. false: stop.
  bool expand(Slot& head) {
    std::vector<std::unique_ptr<Slot>> more = expand_(head);
    if (more.empty()) return true;
    {
      std::lock_guard lk(mu_);
      for (auto& s : more) {
        s->seq = head.seq;  // counted as the head: never held back by the budget
        side_.push_back(s.get());
      }
      side_waiting_.store(side_.size());
    }
    // One slot pushed runs without threads (see the constructor); its parts want them. And the
    // main thread, which delivers them in order and would only wait for each, lends its
    // Worker to a thread of its own for them (side_loop()).
    if (threads_.empty() && workers_.size() > 1) start_threads();
    if (!threads_.empty() && !side_thread_.joinable())
      side_thread_ = std::thread([this, &w = workers_.back()] { side_loop(w); });
    work_cv_.notify_all();
    side_cv_.notify_one();
    for (auto& owned : more) {
      if (!deliver(*owned)) {
        // A worker may still be in one of those left, or take it later: kept to the end.
        for (auto& left : more)
          if (left) side_owned_.push_back(std::move(left));
        return false;
      }
      owned.reset();  // done and taken: no worker holds it any more
    }
    return true;
  }

  // One expanded slot's output, whoever works it (here, when no worker has taken it yet).
  bool deliver(Slot& s) {
    if (take_side(&s)) {
      here_ = true;
      if (!stopped_) work_(s, *helper_);
      here_ = false;
      s.done.store(true);
      if (stopped_) return false;
    }
    for (;;) {
      if (!take_pieces(s)) return false;
      if (s.done.load()) return take_pieces(s) && take_(s, s.last) && done_(s);
      std::unique_lock lk(mu_);
      main_waiting_.store(true);
      main_cv_.wait(lk, [&] { return s.done.load() || s.pending.load() || cancel_; });
      main_waiting_.store(false);
      if (cancel_) return false;
    }
  }

  Work work_;
  Take take_;
  Done done_;
  Expand expand_;
  Worker* helper_ = nullptr;
  std::vector<std::unique_ptr<Slot>> ring_;
  // The counters written for every slot on cache lines of their own (pushed_ and head_ by the
  // main thread, claimed_ by the workers): on one line every write took it away from the
  // other cores mid-loop. wait_seq_'s line is shared with what follows, written rarely.
  alignas(64) std::atomic<uint64_t> pushed_{0};
  alignas(64) std::atomic<uint64_t> claimed_{0};
  alignas(64) std::atomic<uint64_t> head_{0};
  alignas(64) std::atomic<uint64_t> wait_seq_{0};
  std::vector<Worker>& workers_;
  std::vector<std::thread> threads_;
  std::thread side_thread_;  // the last Worker's, from the first expansion on (side_loop())
  std::atomic<bool> last_busy_{false};  // the last Worker is in use (main thread or side_loop)
  std::mutex mu_;
  std::condition_variable work_cv_, main_cv_, room_cv_, side_cv_;
  std::atomic<int> idle_{0}, blocked_{0};
  std::atomic<bool> main_waiting_{false}, cancel_{false};
  size_t buffered_ = 0;   // under mu_
  bool closing_ = false;  // under mu_
  std::deque<Slot*> side_;  // under mu_: expanded slots no worker has taken yet
  std::atomic<size_t> side_waiting_{0};
  std::vector<std::unique_ptr<Slot>> side_owned_;  // main thread: expanded slots after a stop
  bool stopped_ = false;  // main thread only
  bool here_ = false;     // main thread only: run_here() or expand() is doing the work
  const std::thread::id main_id_ = std::this_thread::get_id();  // the pool's maker
};

}  // namespace os
