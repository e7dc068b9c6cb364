import Foundation
import SfumatoFuzzing
import SfumatoTestSupport
import Testing

/// Every input the fuzzers keep (their seed corpora, and each crasher once found and fixed),
/// run through the same entry points without libFuzzer: none may trap.
@Suite("Fuzz corpora and regressions")
struct FuzzRegressionTests {
    static func inputs(_ target: FuzzTarget) -> [URL] {
        let fuzz = Fixtures.root.appendingPathComponent("Fuzz")
        return ["Corpus", "Regressions"].flatMap { kind -> [URL] in
            let folder = fuzz.appendingPathComponent(kind).appendingPathComponent(target.rawValue)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            return names.filter { !$0.hasPrefix(".") }.sorted().map { folder.appendingPathComponent($0) }
        }
    }

    @Test("each target has a seed corpus", arguments: FuzzTarget.allCases)
    func corpus(_ target: FuzzTarget) throws {
        #expect(Self.inputs(target).count >= 3, "Fuzz/Corpus/\(target.rawValue) holds the seeds")
    }

    @Test("every kept input runs to the end", arguments: FuzzTarget.allCases)
    func replay(_ target: FuzzTarget) throws {
        for url in Self.inputs(target) {
            target.run(try [UInt8](Data(contentsOf: url)))
        }
    }
}
