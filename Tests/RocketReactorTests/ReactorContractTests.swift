import Testing
@testable import RocketReactor
import RocketCore

/// A reactor that logs every stage, for the contract's ordering tests.
final class LoggingReactor: Reactor {
    enum Action: Sendable, Equatable { case add(Int), fail, slow(Int), sendFromObserver }
    enum Mutation: Sendable, Equatable { case add(Int) }
    struct State: Sendable, Equatable { var total = 0; var seen: [Int] = [] }
    let initialState = State()
    var log: [String] = []
    let clock = VirtualClock()
    var totalSeenInMutate: [Int] = []
    struct Boom: Error {}

    func transform(action: Action) -> Action { log.append("transform(action)"); return action }
    func mutate(action: Action) -> Mutations<Mutation> {
        log.append("mutate")
        totalSeenInMutate.append(currentTotal)
        switch action {
        case .add(let n): return .just(.add(n))
        case .fail:
            return .run { send in
                send(.add(100)); throw Boom()
            }
        case .slow(let n):
            let start = clock.now, clock = self.clock
            return .run { send in
                try await clock.sleep(until: start.advanced(by: .seconds(1)))
                send(.add(n))
            }
        case .sendFromObserver: return .just(.add(1))
        }
    }
    func transform(mutation: Mutation) -> Mutation { log.append("transform(mutation)"); return mutation }
    func reduce(state: State, mutation: Mutation) -> State {
        log.append("reduce")
        var s = state
        if case .add(let n) = mutation { s.total += n; s.seen.append(n) }
        return s
    }
    func transform(state: State) -> State { log.append("transform(state)"); return state }
    var currentTotal = 0
}

@MainActor
@Suite("The Reactor contract (seed-semantics §4.3)")
struct ReactorContractTests {
    @Test("Order: action → transform → mutate → transform(mutation) → reduce → transform(state)")
    func order() {
        let reactor = LoggingReactor()
        let store = ReactorStore(reactor)
        reactor.log.removeAll()
        store.send(.add(2))
        #expect(reactor.log == ["transform(action)", "mutate", "transform(mutation)", "reduce", "transform(state)"])
        #expect(store.currentState.total == 2)
    }

    @Test("reduce runs synchronously, so a later mutate sees the updated state")
    func synchronousReduce() {
        let reactor = LoggingReactor()
        let store = ReactorStore(reactor)
        store.observe { reactor.currentTotal = $0.total }
        store.send(.add(2))
        store.send(.add(3))
        #expect(reactor.totalSeenInMutate == [0, 2])
    }

    @Test("The state stream replays the current state to late subscribers and serves several")
    func replay() async {
        let store = ReactorStore(LoggingReactor())
        store.send(.add(5))
        var a = store.states.makeAsyncIterator()
        var b = store.states.makeAsyncIterator()
        #expect(await a.next()?.total == 5)
        #expect(await b.next()?.total == 5)
        store.send(.add(1))
        #expect(await a.next()?.total == 6)
        #expect(await b.next()?.total == 6)
    }

    @Test("An error in one mutation stream does not stop the reactor")
    func errors() async {
        let store = ReactorStore(LoggingReactor())
        var errors = 0
        store.onError = { _ in errors += 1 }
        var states = store.states.makeAsyncIterator()
        _ = await states.next()
        store.send(.fail)
        #expect(await states.next()?.total == 100)
        for _ in 0..<100_000 where errors == 0 { await Task.yield() }
        store.send(.add(1))
        #expect(await states.next()?.total == 101)
        #expect(errors == 1)
    }

    @Test("Concurrent actions interleave (flatMap, A6) and cancellation stops in-flight work")
    func interleaveAndCancel() async {
        let reactor = LoggingReactor()
        let store = ReactorStore(reactor)
        var states = store.states.makeAsyncIterator()
        _ = await states.next()
        store.send(.slow(10))
        store.send(.add(1))  // lands before the slow one
        #expect(await states.next()?.seen == [1])
        reactor.clock.advance(by: .seconds(1))
        #expect(await states.next()?.seen == [1, 10])
        store.send(.slow(20))
        #expect(store.runningCount >= 1)
        store.cancelAll()
        reactor.clock.advance(by: .seconds(5))
        for _ in 0..<20 { await Task.yield() }
        #expect(store.currentState.seen == [1, 10])
    }

    @Test("An action sent while a state is delivered is queued, not recursed")
    func reentrancy() {
        let store = ReactorStore(LoggingReactor())
        var depth = 0, maxDepth = 0, calls = 0
        store.observe { state in
            depth += 1
            maxDepth = max(maxDepth, depth)
            if state.total == 1 && calls == 0 { calls += 1; store.send(.add(10)) }
            depth -= 1
        }
        store.send(.add(1))
        #expect(store.currentState.seen == [1, 10])
        #expect(maxDepth == 1)
    }

    @Test("Stub: actions are recorded, the state is set by hand")
    func stub() {
        let store = ReactorStore(LoggingReactor())
        store.isStubEnabled = true
        store.send(.add(3))
        #expect(store.stubActions == [.add(3)])
        #expect(store.currentState.total == 0)
        store.setStubState(LoggingReactor.State(total: 42))
        #expect(store.currentState.total == 42)
    }

    @Test("Action == Mutation reactors mutate with the action itself")
    func sameType() {
        final class Echo: Reactor {
            typealias Action = Int
            let initialState = 0
            func reduce(state: Int, mutation: Int) -> Int { state + mutation }
        }
        let store = ReactorStore(Echo())
        store.send(4)
        store.send(5)
        #expect(store.currentState == 9)
    }

    @Test("A generic subclass works and the store and reactor are released")
    func releases() async {
        weak var weakReactor: MyAlertReactor?
        do {
            let reactor = MyAlertReactor(clock: VirtualClock())
            weakReactor = reactor
            let store = ReactorStore(reactor)
            store.send(.prepare)
            store.cancelAll()
        }
        for _ in 0..<20 { await Task.yield() }
        #expect(weakReactor == nil)
    }
}
