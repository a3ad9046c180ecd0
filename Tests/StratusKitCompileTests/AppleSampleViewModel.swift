// A view model in the shape of Apple's CloudKit samples (the queries and sharing samples'
// ViewModel): ObservableObject with @Published state, Combine pipelines, and a refresh that
// queries CloudKit. Only `import CloudKit` is changed, to `import StratusKit`; `Combine` is
// Apple's on Apple's platforms and StratusLinuxFrameworks' (OpenCombine) on Linux.
import Combine
import Foundation
import OSLog
import StratusKit

@MainActor
final class PlacesViewModel: ObservableObject {
    enum State: Equatable {
        case loading
        case loaded(names: [String])
        case error(String)
    }

    @Published private(set) var state: State = .loading
    @Published var searchText = ""
    @Published private(set) var accountChanges = 0

    private let database: CKDatabase
    private var cancellables = Set<AnyCancellable>()
    private let log = Logger(subsystem: "com.example.apple-samplecode.Places", category: "ViewModel")
    /// Names as the user types, without repeats.
    let searches: AnyPublisher<String, Never>

    init(container: CKContainer) {
        database = container.privateCloudDatabase
        searches = PassthroughSubject<String, Never>().eraseToAnyPublisher()
        NotificationCenter.default.publisher(for: .CKAccountChanged)
            .receive(on: DispatchQueue.main)
            .sink { [weak self] _ in
                MainActor.assumeIsolated { self?.accountChanges += 1 }
            }
            .store(in: &cancellables)
    }

    /// The search text, trimmed and without repeats, as the samples filter their lists.
    var trimmedSearches: AnyPublisher<String, Never> {
        $searchText
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .removeDuplicates()
            .eraseToAnyPublisher()
    }

    func refresh() async {
        state = .loading
        do {
            let query = CKQuery(recordType: "Place", predicate: NSPredicate(value: true))
            let (results, _) = try await database.records(matching: query)
            let names = results.compactMap { try? $0.1.get()["name"] as? String }
            state = .loaded(names: names)
            log.info("Loaded \(names.count) places")
        } catch {
            log.error("Refresh failed: \(error.localizedDescription, privacy: .public)")
            state = .error(error.localizedDescription)
        }
    }
}
