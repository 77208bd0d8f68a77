import Testing
@testable import RocketReactor
import RocketCore

/// The original tests' fixture.
enum MyAlertAction: AlertActionType {
    case loading, edit, share, delete, cancel
    var title: String {
        switch self {
        case .loading: return "Loading"
        case .edit: return "Edit"
        case .share: return "Share"
        case .delete: return "Delete"
        case .cancel: return "Cancel"
        }
    }
    var style: AlertActionStyle {
        switch self {
        case .delete: return .destructive
        case .cancel: return .cancel
        default: return .default
        }
    }
    var isEnabled: Bool { self != .loading }
}

/// The original `MyAlertReactor`: `[.cancel]` at once, then three more lists 100 ticks apart.
final class MyAlertReactor: AlertReactor<MyAlertAction> {
    let clock: VirtualClock
    init(clock: VirtualClock) {
        self.clock = clock
        super.init()
    }
    override func mutate(action: Action) -> Mutations<Mutation> {
        guard case .prepare = action else { return .empty }
        let start = clock.now, clock = self.clock
        return .concat(
            .just(.setActions([.cancel])),
            .run { send in
                try await clock.sleep(until: start.advanced(by: .milliseconds(100)))
                send(.setActions([.edit, .cancel]))
                try await clock.sleep(until: start.advanced(by: .milliseconds(200)))
                send(.setActions([.edit, .delete, .cancel]))
                try await clock.sleep(until: start.advanced(by: .milliseconds(300)))
                send(.setActions([.edit, .share, .delete, .cancel]))
            })
    }
}

@MainActor
@Suite("AlertReactor: the original tests")
struct AlertReactorTests {
    @Test("testReactor: state.actions goes through exactly five lists on a virtual clock")
    func reactor() async throws {
        let clock = VirtualClock()
        let store = ReactorStore(MyAlertReactor(clock: clock))
        var states = store.states.makeAsyncIterator()
        #expect(await states.next()?.actions == [])
        store.send(.prepare)
        #expect(await states.next()?.actions == [.cancel])
        for expected: [MyAlertAction] in [[.edit, .cancel], [.edit, .delete, .cancel], [.edit, .share, .delete, .cancel]] {
            clock.advance(by: .milliseconds(100))
            #expect(await states.next()?.actions == expected)
        }
        #expect(store.currentState.actions == [.edit, .share, .delete, .cancel])
    }

    @Test("The initial state is (title, message, actions ?? [])")
    func initialState() {
        let r = AlertReactor<MyAlertAction>(title: "T", message: "M", actions: nil)
        #expect(r.initialState == AlertReactorState(title: "T", message: "M", actions: []))
        #expect(AlertReactor<MyAlertAction>(actions: [.edit]).initialState.actions == [.edit])
    }

    @Test("Without an override, .prepare does nothing (A5)")
    func defaultMutate() {
        let store = ReactorStore(AlertReactor<MyAlertAction>(title: "x"))
        store.send(.prepare)
        store.send(.selectAction(.edit))
        #expect(store.currentState == AlertReactorState(title: "x"))
    }

    @Test("Controller: title and message from a stubbed state; actions in state order with their styles")
    func controller() {
        let controller = AlertController(reactor: AlertReactor<MyAlertAction>())
        controller.store.isStubEnabled = true
        var state = controller.store.currentState
        state.title = "Hello"
        controller.store.setStubState(state)
        #expect(controller.title == "Hello")
        state.message = "Choose an item"
        controller.store.setStubState(state)
        #expect(controller.message == "Choose an item")
        #expect(controller.buttons.isEmpty)
        for actions: [MyAlertAction] in [[.cancel], [.delete, .cancel], [.edit, .share, .delete, .cancel]] {
            state.actions = actions
            controller.store.setStubState(state)
            #expect(controller.buttons.map(\.action) == actions)
        }
        #expect(controller.buttons.map { "\($0.title)/\($0.style)" } == ["Edit/default", "Share/default", "Delete/destructive", "Cancel/cancel"])
        controller.present()
        #expect(controller.store.stubActions.count == 1)
        if case .prepare = controller.store.stubActions[0] {} else { Issue.record("expected .prepare") }
    }

    @Test("Lazy actions update the open alert live; a disabled action cannot be chosen")
    func live() async {
        let clock = VirtualClock()
        final class Lazy: AlertReactor<MyAlertAction> {
            let clock: VirtualClock
            init(clock: VirtualClock) { self.clock = clock; super.init(title: "Item") }
            override func mutate(action: Action) -> Mutations<Mutation> {
                guard case .prepare = action else { return .empty }
                let start = clock.now, clock = self.clock
                return .concat(
                    .just(.setActions([.loading, .cancel])),
                    .run { send in
                        try await clock.sleep(until: start.advanced(by: .seconds(1)))
                        send(.setActions([.edit, .delete, .cancel]))
                    })
            }
        }
        let controller = AlertController(reactor: Lazy(clock: clock), style: .actionSheet)
        var changes = controller.store.states.makeAsyncIterator()
        _ = await changes.next()
        controller.present()
        _ = await changes.next()
        #expect(controller.buttons.map(\.title) == ["Loading", "Cancel"])
        #expect(controller.select(0) == false)
        clock.advance(by: .seconds(1))
        _ = await changes.next()
        #expect(controller.buttons.map(\.title) == ["Edit", "Delete", "Cancel"])
        #expect(controller.select(1))
        #expect(controller.selected == .delete && controller.isDismissed)
        #expect(controller.select(0) == false)
    }

    @Test("A change of isEnabled alone rebuilds the buttons (A1); an unchanged list does not")
    func enabledOnly() {
        struct Toggle: AlertActionType { var title: String; var isEnabled: Bool }
        let controller = AlertController(reactor: AlertReactor<Toggle>(actions: [Toggle(title: "Go", isEnabled: false)]))
        controller.store.isStubEnabled = true
        let before = controller.buttonRebuilds
        controller.store.setStubState(AlertReactorState(actions: [Toggle(title: "Go", isEnabled: false)]))
        #expect(controller.buttonRebuilds == before)
        controller.store.setStubState(AlertReactorState(actions: [Toggle(title: "Go", isEnabled: true)]))
        #expect(controller.buttonRebuilds == before + 1)
        #expect(controller.buttons[0].isEnabled)
    }

    @Test("Two cancel actions are reported, not thrown by a presenter (A4)")
    func twoCancels() {
        let controller = AlertController(reactor: AlertReactor<MyAlertAction>(actions: [.cancel, .edit, .cancel]))
        #expect(controller.problem == .severalCancelActions(["Cancel", "Cancel"]))
    }

    @Test("dismissOnSelect can be turned off (A2); dismissing cancels in-flight loading (A3)")
    func dismissal() async {
        let clock = VirtualClock()
        let controller = AlertController(reactor: MyAlertReactor(clock: clock), dismissOnSelect: false)
        controller.present()
        #expect(controller.select(0))
        #expect(!controller.isDismissed)
        controller.dismiss()
        clock.advance(by: .seconds(1))
        for _ in 0..<20 { await Task.yield() }
        #expect(controller.buttons.map(\.action) == [.cancel])
    }
}
