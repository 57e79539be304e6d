import Foundation
import Testing

@testable import LogStore

@Suite("Image size", .timeLimit(.minutes(TimeScale.minutes(1))))
struct ImageSizeTests {

    // MARK: Real files

    /// A small image written by a real encoder, embedded (base64) so the tests need nothing installed.
    /// Made once with Pillow 13.0 (its own PNG and GIF writers, libjpeg-turbo, libwebp) from a
    /// synthetic gradient, pixel (x, y) = ((7x + 13y) mod 256, …); the comment above each gives
    /// the encoder settings.
    struct RealImage: CustomTestStringConvertible, Sendable {
        var name: String
        var format: ImageSize.Format
        var width: Int
        var height: Int
        var base64: String

        var bytes: [UInt8] {
            Data(base64Encoded: base64, options: .ignoreUnknownCharacters).map { [UInt8]($0) } ?? []
        }

        var expected: ImageSize {
            ImageSize(format: format, width: width, height: height)
        }

        var testDescription: String { name }
    }

    static let realImages: [RealImage] = [
        // 259×3, PNG, 8-bit RGB, optimize=True; 102 bytes.
        RealImage(
            name: "png", format: .png, width: 259, height: 3,
            base64: """
                iVBORw0KGgoAAAANSUhEUgAAAQMAAAADCAIAAAAYxP0oAAAALUlEQVR42mNk+M/A/nMUjaKRjhh5PzGw/2QcRaNohCNGqacM7D+Z
                RtEoGuEIAJYaDDRym+dxAAAAAElFTkSuQmCC
                """),
        // 261×5, GIF87a, 4-colour palette; 242 bytes.
        RealImage(
            name: "gif87a", format: .gif, width: 261, height: 5,
            base64: """
                R0lGODdhBQEFAIEAAN/f352dnVxcXB4eHiwAAAAABQEFAAAIywAHCBw4UIDBgwcDKFzIEIDDhw8JSkRIkaFFiBgBSCxIMaHFhhkd
                buTYUcDHhSEjjizp8WRKjSMHsDR5MsBLmCtZ1rSZMibBmTt5hvQJtObNmDNpuuyJVKfRl0SdLh3atGRQqFU77jzqU2bRqRmjWn3K
                NOdYsBjFat1aduPXj1zdSkULUW1FslS7vr3YduJcuH1//gUZWOBevnnlngVc2OtglI0dr6VbF6nhxwrj+l3MOGzWu5RVKuZM2LPZ
                yZ1NjwaduvJp1q1FKw4IADs=
                """),
        // 6×262, GIF89a (transparency forces 89a), 4-colour palette; 331 bytes.
        RealImage(
            name: "gif89a", format: .gif, width: 6, height: 262,
            base64: """
                R0lGODlhBgAGAYEAAN7e3pycnFxcXB4eHiH5BAEAAAAALAAAAAAGAAYBAAj/AAcIHEiwoEABBAUgHKCwocOHEAUEaBigosSKGDNq
                3BgAAEYAIDuCHEmypEkAA0gKBGmwpcuFDBXGjEjz4USFGC9y3KnRY8WRIk8KLZmS5UqXSBMudDizZk2LOnlKzRgy6NCrKosSRJk0
                qcymTiPe1IlzKk+fQX9iXWvUaNeXAxuCDQtxbE6zUtECZTu0KNeUb5F+nTmXLsWbePFW5bt2pdu/gQt+NUxz7MWyiXtS9ckYq+PI
                LWHKpVz58MTMHPWG7GzS70DIoOPGlUm6LuK7qDerXc1a5cjXsSUvrf30du7UnHuf/Bxc9sHJxCmajnpctUflv38zb85wNsLoh6cf
                HP9o3Wpv10e5x3wO3qbx8brNY+fqtjnM9YUbBgQAOw==
                """),
        // 263×7, JFIF, baseline (SOF0), quality 50, optimized Huffman tables; 899 bytes.
        RealImage(
            name: "jpegBaseline", format: .jpeg, width: 263, height: 7,
            base64: """
                /9j/4AAQSkZJRgABAQAAAQABAAD/2wBDABALDA4MChAODQ4SERATGCgaGBYWGDEjJR0oOjM9PDkzODdASFxOQERXRTc4UG1RV19i
                Z2hnPk1xeXBkeFxlZ2P/2wBDARESEhgVGC8aGi9jQjhCY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2Nj
                Y2NjY2NjY2P/wAARCAAHAQcDASIAAhEBAxEB/8QAGAABAQEBAQAAAAAAAAAAAAAAAAMEAgH/xAAwEAACAgADBwICCwAAAAAAAAAB
                AgADBBEhEjFBUVJxkQXhE2EjMmJygZKhscHR8P/EABkBAQADAQEAAAAAAAAAAAAAAAUDBAYCAf/EACsRAAEDAwEHAwUBAAAAAAAA
                AAEAAgMEESExBRITUWGRsRRB0SIycYHwwf/aAAwDAQACEQMRAD8A6e2Qd4iEQRtOq4o6ePGFF2lMPgXxADsdms8eJ7REVbBGG3sk
                dpzuoqUPhwSbfjBOOuFurw1VA+jUA8WO8zi1kU5McjET2eCKKLiBtz1QNK3jP3pCST7lZrLE4ZnsJJcrXCIpLHcNIiRRlpBO6Oy0
                oY2CnfK0ZaCewutVXpyDW8bR6VOQmg7KrsrWFA4DSIk0ULZPu8D4WVFRLWODpnX6ew/SjawCk7IHzzmR7V5r4MROalrIZQ0AafPK
                y0lBTxkaL2nDtiQWXYCA5EkGbaaKaACKwX4sRr++kRI7h7rWACH2lVyvqH017MBtYYv+efheu46B495F2HQPHvERKCmjOo8KxRwR
                8lhe4cx/vwmyr08aNew+6v8AJyiIJxSAFb2zPJSMjbAbb17n3xbTutIFda7Naqo+Q9pKx9fq5+IiXYomv1CKpYWuO87JKg7fYP6S
                a1Pe5VABlvLAaREsVcTYKcyN1x/YsnJ3+lpHzRgXFtepA/1bKcLTQdokO/Mpu7CUexeY/LEQ2F4ebuHn5WcjLql/EmNz/dlmdzyT
                xIWOelT2ERFYadjgtPR08eMK1OCd0+JeoRDqAMiSJqVqaVyrqVR23xEPq3OilDAcW6cyszLVS1kjmyH6QdBgY8/tcPcvSPEg9q9I
                8REsQOvqB2TNHTR8lzWhxFmxWik7znwE2Ven0pk1qixuWWg/uIiAtfdsOypbWrJoZ/TRHdbYaa56/Ck9sREybWNsoo6ePd0X/9k=
                """),
        // 3×265, JFIF, progressive (SOF2), quality 50; 1015 bytes.
        RealImage(
            name: "jpegProgressive", format: .jpeg, width: 3, height: 265,
            base64: """
                /9j/4AAQSkZJRgABAQAAAQABAAD/2wBDABALDA4MChAODQ4SERATGCgaGBYWGDEjJR0oOjM9PDkzODdASFxOQERXRTc4UG1RV19i
                Z2hnPk1xeXBkeFxlZ2P/2wBDARESEhgVGC8aGi9jQjhCY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2Nj
                Y2NjY2NjY2P/wgARCAEJAAMDASIAAhEBAxEB/8QAGAABAQEBAQAAAAAAAAAAAAAAAAMCBAH/xAAZAQEBAAMBAAAAAAAAAAAAAAAD
                AgABBAX/2gAMAwEAAhADEAAAAfUHDNBeSdJLgsTPGCVdBR2ZWeFyXxOl5CTeEuqBNdCag9bXqDrJcGiXpImtpvD5/wD/xAAcEAAD
                AQACAwAAAAAAAAAAAAAAARECEyEQEjH/2gAIAQEAAQUCpTjRTspRYzKLOpSizmJizqJ9UmSnoylIinGUovlOPqisvj//xAAkEQAB
                AgUEAgMAAAAAAAAAAAAAFFIBAgMTUQQSkaERI2Kx4f/aAAgBAwEBPwFGedQ4VztFNHETZRdDkRm2s6PIqrNgKpGnocIyxPku6nPU
                BX8O/wALmmd9ieTJZlP/xAAaEQACAwEBAAAAAAAAAAAAAAAAAQIREiEi/9oACAECAQE/AcHRPgqoilRGHlEE8og3lDfSkYMisT4R
                qiMeFH//xAAYEAEBAQEBAAAAAAAAAAAAAAAxECABQf/aAAgBAQAGPwKMO5MlJ5TkcsL/AP/EAB4QAQACAgIDAQAAAAAAAAAAAAEA
                IRARocExQWGB/9oACAEBAAE/IcBotYAzoyAGzbCkRApCk0lcyiaCKEY0emH3yKerAWjfHDwiABUKQo6woTYET+Zf/9oADAMBAAIA
                AwAAABD0/wC8BCz+yOAw/wA/vf8A/8QAIxEBAAEEAQIHAAAAAAAAAAAAAQARIZHRMVGBQWFxocHh8P/aAAgBAwEBPxA8kWvVOgcs
                TaDdjcSaOJueiLvzNxqWwO5037Sp8ELOJV5WWKX/AE7RNbSUvppEGiMkJf/EABwRAAIDAQADAAAAAAAAAAAAAAABESExQRBxkf/a
                AAgBAgEBPxBBKOjIUPBRC3w+QjUcRkuIRKhy74JoKUVKKViY+iJ//8QAIRABAAMAAgIBBQAAAAAAAAAAAQARITFBUXFhEIGRoeH/
                2gAIAQEAAT8QfnPeUVl8lE94ARh0RQzDJCDC1VLmLYcR0+UJmmeHBvnKtmPY9hadpO06mvPUqAV12XHf2JeChhiufqPHeidd6ICA
                wDkM4nojqga4LQyeiGXogoADgKmLeiPpVouv6n4YhOEnImPz+n//2Q==
                """),
        // 5×2, JFIF + Exif APP1 (orientation 6) before the DQT and SOF0 segments; 352 bytes.
        RealImage(
            name: "jpegExif", format: .jpeg, width: 5, height: 2,
            base64: """
                /9j/4AAQSkZJRgABAQAAAQABAAD/4QA4RXhpZgAATU0AKgAAAAgAAgEPAAIAAAAJAAAAJgESAAMAAAABAAYAAAAAAABMb2dTdG9y
                ZQAA/9sAQwAQCwwODAoQDg0OEhEQExgoGhgWFhgxIyUdKDozPTw5Mzg3QEhcTkBEV0U3OFBtUVdfYmdoZz5NcXlwZHhcZWdj/9sA
                QwEREhIYFRgvGhovY0I4QmNjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2Nj/8AAEQgAAgAF
                AwEiAAIRAQMRAf/EABUAAQEAAAAAAAAAAAAAAAAAAAAD/8QAFhABAQEAAAAAAAAAAAAAAAAAAAIx/8QAFAEBAAAAAAAAAAAAAAAA
                AAAABv/EABcRAAMBAAAAAAAAAAAAAAAAAAABAjH/2gAMAwEAAhEDEQA/AL1oA0g1OI//2Q==
                """),
        // 270×9, simple lossy (VP8 chunk), quality 30; 698 bytes.
        RealImage(
            name: "webpLossy", format: .webp, width: 270, height: 9,
            base64: """
                UklGRrICAABXRUJQVlA4IKYCAADwEACdASoOAQkAPwFurFArJqQitpVcyWAgCWwAnTKEfAfB+YJQH7N+KN1CIX6obM3TE9CL9Guv
                J4lf7Ve9r/cv0A9wH/g9LPqYPQA/Wb01vZZ/cD0cnzjsr75nHQpv22aXId3yZtWnksKDnJY4Nzcl+fhSZTAJoPIc4U/oTRXJb12G
                KSInMC2tgeOmt3DRhgAA+BvrrQNGWsf/ztek/LhpZNX//DQwsYxVMOFee5lpY0UCAZFvSyPfjGwPuEKmQUdeIJjveadx/l5ER8Vt
                89Tpo6YI3RoAM34M6E0wvrL88rvWgOEEerYp0t0ZJZ+Ix819zVWC5NwrPIRLuEszpF2uR+ucL7JzfP2FZL9gf17h5M5/N6Q4kahd
                pp21bmJN+deb7hNEGjV8PcB8uRdcoznHMefxCc3+oSlG1v1C/3bitLqeneQpbquwB47qYOeTXYrmzFbft0YyM2Cb2lzkKxKliqTL
                h2DZDyMpFlabWjhCrihvndS6tvLp4vDQbQoEUHWgciVOt+yENF3C44lFZHDBMyKmB9ESv+UYxbbrFf50XNA2iQEQS883oKzHAWwG
                uONtQTzT289v/PuWBZhc0MpU8M7a6zOO0WwuuxWJtb9lc98hHk5w6XV7u9AdW3D4BUT+kIEya0k0ozevuUoQHYe0KziQCVU73RJk
                pjGrO7/JGLTej9XHEFS2p+FPLEEPdVMPfdgJpj6JTvLvUVKWhkOKasijTZdk5Z8MqBONe7SR1171UaLS0pKO9LBXjWyq6wpqJ2Ir
                aYLXsUMJJMKhyPNwuh4Icu8akR8AArNNei4a9DNLWfBnZF9jcp/BUjtQmx3L0DWr1YUW6SYNFmAlAmb7ymjDuek47lQyfR5fDght
                TSyKpqeVOkXN7phDYybOpe1+8IMAAAA=
                """),
        // 271×11, simple lossless (VP8L chunk); 422 bytes.
        RealImage(
            name: "webpLossless", format: .webp, width: 271, height: 11,
            base64: """
                UklGRp4BAABXRUJQVlA4TJIBAAAvDoECALkyRPQ/FgratmHKH61JdIeBQDbJn/aLoOD9T8AH3NiQ3oAjSZLjJv//V2hLa4wiQNKc
                f6jVtj1r/uv7/roFB9U9B8UIyF40qg7AFJ2UAYqOzAQ50VGRGSMcuW0jSXLPfhrFqf7DdbLnn5EdGMhZwFqCgRzAAvRzARswkKOA
                pQT9XAVswUBOYAUGshdS7zt+Z3ef1J2FQJLyoe6Ig+44TrojfGD/lwA5Hzp/Rp+5w7x9XP9XAtBkzh1ZyMVgav5LEUD1qeGOONR/
                vpLejnZnDTBIcf7Ed+gNzJ8sd8f6B84h8MghPt01w/d7d8hG+t+hP3/SF+h23VGEMCnvMLHyVOk/edkd7xshPL+63eH3tQytHR7m
                TDZ/GjM7zHDkHGKDWo5gCRDBpcaVrP98ztxL+CuyZwfQoeeOHKDWvB8ADFALReCOFQq7lj1l7iiRhtd3d++7Uf6aKuxO/hNZeg73
                aMyfDKCOYqie81/pAx3DzPL5U0RwCCm44xRBlrvjI/rflfDz7A4RxfAPUIT9bwE=
                """),
        // 273×13, lossy with alpha: extended format (VP8X, then ALPH and VP8 chunks); 1008 bytes.
        RealImage(
            name: "webpAlpha", format: .webp, width: 273, height: 13,
            base64: """
                UklGRugDAABXRUJQVlA4WAoAAAAQAAAAEAEADAAAQUxQSBUAAAABuYzof0BIQHji/1tNxARMAJUjVgYAVlA4IKwDAAAwEwCdASoR
                AQ0APw1wrlAsJqQis5RskYAhiWwAnTKEgbfAeYJTv7h+HdoRIpCE/Qvoa/ql1x/575SX7M+/h6F/QA/uP+k6wD0APLX/cP4Uv2j/
                cL2isDPtXn7XxPAr/tNZqBy/jiE63PuDA0ECa9TgNDprNfc3YLfJGRzMQeES5XaRPDpYamOuUVZC36gIwcOzBGCh+t0bpYxI96RD
                jPnBlwAA9zbrSG7iq+T+qfiS6C6CxXf/z9nM3M+xpQU4//DSjPrWQjxlAsG22Ni9Lg+0sSe6oVPl8gXtTuFjiWiiLa/AUF15ZQN1
                1ZGi5B56yTMuHWPumGvnFWOG81o2LzMes5FB0hK0gH2ILfbo/dv0BjtIFHPxjhAol3kM9ku0iBoGlgoPdUy1CZ76uy8be1e9824H
                89kcfdnHHcRtVB8+Yi0631c1QinyT4gZE3OIKlO4+OpSGBz41gcOFwyBVlno4gD7hhh+F9uCV2C5hULGWgXtTzc1Txmi8XYJup7d
                gaVCuDqE5fvb4SRdHIBrrJWbCdQXsmENoG+lY2SFNi0jSIm5MB80uOYny8ykO4L4O5FN9JW5WPHxGeMNspOSMDzm4gHwLwc2lykK
                2qZ44n0DvFwVpKqZhkUT+4llUeY3xkmv+SjzpdN89jy9FEF1Zm/fTfPNEpOVDZN4AU7zArgPNs0tC5AWkmTRBaRKEiCUP5j3rF7P
                VVm/wP+m80rNnPSLaoAOQGMixka7tIxeHp9pl+7pa7hZ8hhqLxvbF552z9lhsQe5j+aGcNHUC1bYuKPCBOSTPl1qTvuO9RDL7ysC
                OLnykK0m7N8ZWgtXRA0oKzr7qmtxBoAQGOaaLSUv6w8YDvhfHwkrpxm48eHHFmx6U7iQPmFhtT1LXzUTxcy3gxGuh279A25EXGs/
                pYB7fIDADVPhmMvW6EHLhNhUbD6kWZYHugmK9wwWMuzWwiUfBVfYQyNCAi+NnBAZNbOM/Grta1J5KzNBHyNDLFUr6jVcYfV/McDq
                C7kFV51owMMMlcj9Kzdb6kLPCzsMBCLhTr14eh7SAkjg/kTk0Wdpal8Ll1Idx1eBY/Wk4Z++MsRqFh+vjrupYWZcN1+0nZ9aVPv4
                4jcGlej0sbBqRDLn+CpoBMf77ZnigmydZaTlNy1C6G0i/dEB3r8yKMhQgQPw/t96zsKSEXMEn5IGM3wfGiff+5ioJYys1rAk/UhV
                Hl+TMNQkFBZ2NYXg32tgthcly/uAH+dizCZ/qwkoAAAA
                """),
    ]

    @Test(arguments: realImages)
    func realImageSize(_ image: RealImage) {
        #expect(ImageSize.read(image.bytes) == image.expected)
        #expect(ImageSize.read(Data(image.bytes)) == image.expected)
    }

    /// Every prefix of a real file: `nil` until the size field is complete, then the full answer.
    @Test(arguments: realImages)
    func realImageTruncatedAtEveryLength(_ image: RealImage) throws {
        let bytes = image.bytes
        let results = (0..<bytes.count).map { ImageSize.read(bytes[0..<$0]) }
        let first = try #require(results.firstIndex { $0 != nil }, "no prefix is readable")
        #expect(results[..<first].allSatisfy { $0 == nil })
        #expect(results[first...].allSatisfy { $0 == image.expected })
        #expect(first <= 512, "the size should be near the start, found after \(first) bytes")
    }

    /// Random byte changes to real files never crash and never give an out-of-range size.
    @Test(arguments: realImages)
    func realImageMutations(_ image: RealImage) {
        var random = SeededRandom(seed: 0x1A6E_5123)
        let original = image.bytes
        for _ in 0..<3000 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                // Mostly in the header, where the parsers look.
                let range = Bool.random(using: &random) ? 0..<min(64, bytes.count) : 0..<bytes.count
                bytes[Int.random(in: range, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            if let size = ImageSize.read(bytes) { expectPlausible(size) }
            let cut = Int.random(in: 0...bytes.count, using: &random)
            if let size = ImageSize.read(bytes[0..<cut]) { expectPlausible(size) }
        }
    }

    // MARK: Hand-built headers: exact thresholds and edge sizes

    @Test func pngSizes() {
        for (width, height) in Self.sampleSizes(max: UInt32(ImageSize.maxDimension)) {
            let bytes = Make.png(width: width, height: height)
            #expect(ImageSize.read(bytes) == ImageSize(format: .png, width: Int(width), height: Int(height)))
        }
        // Byte order: 0x01020304 wide would be 0x04030201 read the wrong way round (both too big).
        #expect(ImageSize.read(Make.png(width: 0x0001_0203, height: 0x0000_0405))?.width == 0x0001_0203)
        #expect(ImageSize.read(Make.png(width: 0x0001_0203, height: 0x0000_0405))?.height == 0x0405)
    }

    @Test func pngCgBIVariant() {
        var bytes = Make.png(width: 57, height: 58)
        // Apple's optimised PNGs insert a 4-byte CgBI chunk before IHDR.
        bytes.insert(contentsOf: [0, 0, 0, 4] + Array("CgBI".utf8) + [0x50, 0, 0x20, 0x06] + [0, 0, 0, 0], at: 8)
        #expect(ImageSize.read(bytes) == ImageSize(format: .png, width: 57, height: 58))
    }

    @Test func pngRejectsBadIHDR() {
        var wrongLength = Make.png(width: 10, height: 10)
        wrongLength[11] = 12
        #expect(ImageSize.read(wrongLength) == nil)
        var wrongType = Make.png(width: 10, height: 10)
        wrongType[12] = UInt8(ascii: "i")
        #expect(ImageSize.read(wrongType) == nil)
        var damagedSignature = Make.png(width: 10, height: 10)
        damagedSignature[4] = 0x0A
        #expect(ImageSize.read(damagedSignature) == nil)
    }

    @Test func gifSizes() {
        for version in ["87a", "89a"] {
            for (width, height) in Self.sampleSizes(max: UInt16.max) {
                let bytes = Make.gif(version: version, width: width, height: height)
                #expect(ImageSize.read(bytes) == ImageSize(format: .gif, width: Int(width), height: Int(height)))
            }
        }
        #expect(ImageSize.read(Make.gif(version: "88a", width: 5, height: 5)) == nil)
    }

    @Test func jpegSizes() {
        for (width, height) in Self.sampleSizes(max: UInt16.max) {
            let bytes = Make.jpeg(width: width, height: height)
            #expect(ImageSize.read(bytes) == ImageSize(format: .jpeg, width: Int(width), height: Int(height)))
        }
    }

    @Test func jpegEveryFrameTypeButDHTJPGAndDAC() {
        for marker in UInt8(0xC0)...0xCF {
            let bytes = Make.jpeg(width: 300, height: 200, sof: marker)
            if [0xC4, 0xC8, 0xCC].contains(marker) {
                #expect(ImageSize.read(bytes) == nil, "marker \(marker) is not a frame header")
            } else {
                #expect(ImageSize.read(bytes) == ImageSize(format: .jpeg, width: 300, height: 200), "marker \(marker)")
            }
        }
    }

    /// DHT, JPG and DAC segments (markers C4, C8, CC, in the SOF range) whose bytes look like a frame
    /// header with other sizes come first and must be skipped.
    @Test func jpegSkipsDHTJPGAndDACBeforeTheFrame() {
        let decoy: [UInt8] = [0x08, 0x00, 0x10, 0x00, 0x20, 0x03, 0x01, 0x11, 0x00]
        let segments = [
            Make.segment(0xC4, decoy), Make.segment(0xC8, decoy), Make.segment(0xCC, decoy),
        ]
        let bytes = Make.jpeg(width: 640, height: 480, before: segments)
        #expect(ImageSize.read(bytes) == ImageSize(format: .jpeg, width: 640, height: 480))
    }

    @Test func jpegFillBytesAndStandaloneMarkers() {
        // FF fill bytes before markers, TEM (FF01) and RST0…RST7 (FFD0…FFD7) without lengths.
        var bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xFF, 0xFF, 0x01]
        for rst in UInt8(0xD0)...0xD7 { bytes += [0xFF, rst] }
        bytes += [0xFF, 0xFF] + Make.segment(0xE0, Array("JFIF\0".utf8) + [1, 2, 0, 0, 1, 0, 1, 0, 0])
        bytes += [0xFF, 0xFF, 0xFF] + Make.segment(0xC0, Make.frameHeader(width: 33, height: 44))
        #expect(ImageSize.read(bytes) == ImageSize(format: .jpeg, width: 33, height: 44))
    }

    @Test func jpegStopsAtScanEndOfImageOrGarbage() {
        let app0 = Make.segment(0xE0, Array("JFIF\0".utf8) + [1, 2, 0, 0, 1, 0, 1, 0, 0])
        let frame = Make.segment(0xC0, Make.frameHeader(width: 10, height: 10))
        // Start of scan before the frame header.
        #expect(ImageSize.read([0xFF, 0xD8] + app0 + Make.segment(0xDA, [1, 1, 0, 0, 0x3F, 0]) + frame) == nil)
        // End of image, or a second start of image.
        #expect(ImageSize.read([0xFF, 0xD8] + app0 + [0xFF, 0xD9] + frame) == nil)
        #expect(ImageSize.read([0xFF, 0xD8, 0xFF, 0xD8] + frame) == nil)
        // A byte that is not FF where a marker must start; a stuffed zero.
        #expect(ImageSize.read([0xFF, 0xD8] + app0 + [0x00] + frame) == nil)
        #expect(ImageSize.read([0xFF, 0xD8, 0xFF, 0x00] + frame) == nil)
        // Bare SOI.
        #expect(ImageSize.read([0xFF, 0xD8]) == nil)
    }

    /// Segment lengths of 0 or 1 would make a naive walker step back or stand still forever.
    @Test func jpegMarkerLoops() {
        let frame = Make.segment(0xC0, Make.frameHeader(width: 10, height: 10))
        for length: UInt8 in [0, 1] {
            let looping: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE1, 0x00, length]
            #expect(ImageSize.read(looping + frame) == nil)
            #expect(ImageSize.read(looping + looping + looping + frame) == nil)
        }
        // A length that jumps back onto the same marker when misread as "including the marker".
        #expect(ImageSize.read([0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x02, 0xFF, 0xE1, 0x00, 0x02] + frame)?.width == 10)
        // Nothing but fill bytes, far past the header limit: ends, quickly, with nil.
        let fill = [0xFF, 0xD8] + [UInt8](repeating: 0xFF, count: 4 << 20)
        #expect(ImageSize.read(fill) == nil)
        // Thousands of empty segments, then the frame: found while within the limit.
        let empty: [UInt8] = [0xFF, 0xFE, 0x00, 0x02]
        let many: [UInt8] = [0xFF, 0xD8] + Array([[UInt8]](repeating: empty, count: 10_000).joined())
        #expect(ImageSize.read(many + frame) == ImageSize(format: .jpeg, width: 10, height: 10))
        let tooMany: [UInt8] = [0xFF, 0xD8] + Array([[UInt8]](repeating: empty, count: 100_000).joined())
        #expect(ImageSize.read(tooMany + frame) == nil)
    }

    /// The walk reads at most `headerPrefixLength` bytes: a frame header behind large APPn segments is
    /// found while it lies within them, not after.
    @Test func jpegHeaderLimit() {
        let big = Make.segment(0xE2, [UInt8](repeating: 0x41, count: 65_533))  // the largest segment
        let frame = Make.segment(0xC0, Make.frameHeader(width: 1, height: 2))
        let within = [0xFF, 0xD8] + big + big + big + frame
        #expect(within.count <= ImageSize.headerPrefixLength)
        #expect(ImageSize.read(within) == ImageSize(format: .jpeg, width: 1, height: 2))
        let beyond = [0xFF, 0xD8] + big + big + big + big + frame
        #expect(beyond.count > ImageSize.headerPrefixLength)
        #expect(ImageSize.read(beyond) == nil)
    }

    @Test func jpegRejectsShortOrOverlongSegments() {
        // A frame header whose length leaves no room for the sizes.
        #expect(ImageSize.read([0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x07, 0x08, 0x00, 0x10, 0x00, 0x10, 0x01]) == nil)
        // A segment length past the end of the data.
        let frame = Make.segment(0xC0, Make.frameHeader(width: 10, height: 10))
        #expect(ImageSize.read([0xFF, 0xD8, 0xFF, 0xE0, 0xFF, 0xF0] + frame) == nil)
    }

    @Test func webpSizes() {
        for (width, height) in Self.sampleSizes(max: UInt16(16383)) {
            #expect(
                ImageSize.read(Make.webpLossy(width: width, height: height))
                    == ImageSize(format: .webp, width: Int(width), height: Int(height)))
        }
        for (width, height) in Self.sampleSizes(max: UInt32(16384)) {
            #expect(
                ImageSize.read(Make.webpLossless(width: width, height: height))
                    == ImageSize(format: .webp, width: Int(width), height: Int(height)))
        }
        for (width, height) in Self.sampleSizes(max: UInt32(ImageSize.maxDimension)) {
            #expect(
                ImageSize.read(Make.webpExtended(width: width, height: height))
                    == ImageSize(format: .webp, width: Int(width), height: Int(height)))
        }
    }

    @Test func webpLossyIgnoresScaleBits() {
        var bytes = Make.webpLossy(width: 100, height: 50)
        bytes[27] |= 0xC0  // width's upscaling bits
        bytes[29] |= 0x40  // height's
        #expect(ImageSize.read(bytes) == ImageSize(format: .webp, width: 100, height: 50))
    }

    @Test func webpRejectsInconsistentHeaders() {
        var interFrame = Make.webpLossy(width: 10, height: 10)
        interFrame[20] |= 0x01
        #expect(ImageSize.read(interFrame) == nil)
        var badStartCode = Make.webpLossy(width: 10, height: 10)
        badStartCode[24] = 0x02
        #expect(ImageSize.read(badStartCode) == nil)
        var badSignature = Make.webpLossless(width: 10, height: 10)
        badSignature[20] = 0x2E
        #expect(ImageSize.read(badSignature) == nil)
        var badVersion = Make.webpLossless(width: 10, height: 10)
        badVersion[24] |= 0x20
        #expect(ImageSize.read(badVersion) == nil)
        // RIFF size too small for the first chunk.
        var smallRIFF = Make.webpLossy(width: 10, height: 10)
        smallRIFF[4] = 12
        #expect(ImageSize.read(smallRIFF) == nil)
        smallRIFF[4] = 3
        #expect(ImageSize.read(smallRIFF) == nil)
        // Chunk payload too small for the header.
        var smallChunk = Make.webpExtended(width: 10, height: 10)
        smallChunk[16] = 9
        #expect(ImageSize.read(smallChunk) == nil)
        // Another first chunk, or another RIFF form (WAVE).
        var alphaFirst = Make.webpExtended(width: 10, height: 10)
        alphaFirst.replaceSubrange(12..<16, with: Array("ALPH".utf8))
        #expect(ImageSize.read(alphaFirst) == nil)
        var wave = Make.webpLossy(width: 10, height: 10)
        wave.replaceSubrange(8..<12, with: Array("WAVE".utf8))
        #expect(ImageSize.read(wave) == nil)
    }

    /// Hand-built headers end exactly where the size field ends: every shorter prefix is `nil`.
    @Test func handBuiltTruncatedAtEveryLength() {
        let app0 = Make.segment(0xE0, Array("JFIF\0".utf8) + [1, 2, 0, 0, 1, 0, 1, 0, 0])
        let cases: [(bytes: [UInt8], needed: Int)] = [
            (Make.png(width: 7, height: 9), 24),
            (Make.gif(version: "89a", width: 7, height: 9), 10),
            (Make.jpeg(width: 7, height: 9), 2 + 2 + 7),
            (Make.jpeg(width: 7, height: 9, before: [app0]), 2 + app0.count + 2 + 7),
            (Make.webpLossy(width: 7, height: 9), 30),
            (Make.webpLossless(width: 7, height: 9), 25),
            (Make.webpExtended(width: 7, height: 9), 30),
        ]
        for (bytes, needed) in cases {
            for length in 0...bytes.count {
                let result = ImageSize.read(bytes[0..<length])
                if length < needed {
                    #expect(result == nil, "\(length) of \(bytes.count) bytes")
                } else {
                    #expect(result?.width == 7 && result?.height == 9, "\(length) of \(bytes.count) bytes")
                }
            }
        }
    }

    // MARK: Absurd sizes

    @Test func zeroSizesAreRejected() {
        #expect(ImageSize.read(Make.png(width: 0, height: 10)) == nil)
        #expect(ImageSize.read(Make.png(width: 10, height: 0)) == nil)
        #expect(ImageSize.read(Make.gif(version: "89a", width: 0, height: 10)) == nil)
        #expect(ImageSize.read(Make.gif(version: "87a", width: 10, height: 0)) == nil)
        #expect(ImageSize.read(Make.jpeg(width: 0, height: 10)) == nil)
        #expect(ImageSize.read(Make.jpeg(width: 10, height: 0)) == nil)  // height in a later DNL segment
        #expect(ImageSize.read(Make.webpLossy(width: 0, height: 10)) == nil)
        #expect(ImageSize.read(Make.webpLossy(width: 10, height: 0)) == nil)
        // A lossy size field of 0x4000 is 0 with an upscaling bit: still 0.
        #expect(ImageSize.read(Make.webpLossy(width: 0x4000, height: 10)) == nil)
    }

    @Test func hugeSizesAreRejected() {
        let max = UInt32(ImageSize.maxDimension)
        #expect(ImageSize.read(Make.png(width: max, height: max))?.width == ImageSize.maxDimension)
        #expect(ImageSize.read(Make.png(width: max + 1, height: 10)) == nil)
        #expect(ImageSize.read(Make.png(width: 10, height: max + 1)) == nil)
        #expect(ImageSize.read(Make.png(width: UInt32.max, height: UInt32.max)) == nil)
        #expect(ImageSize.read(Make.png(width: 0x8000_0000, height: 1)) == nil)
        #expect(ImageSize.read(Make.webpExtended(width: max, height: max))?.height == ImageSize.maxDimension)
        #expect(ImageSize.read(Make.webpExtended(width: max + 1, height: 10)) == nil)
        #expect(ImageSize.read(Make.webpExtended(width: 10, height: 1 << 24)) == nil)  // the largest the field holds
    }

    // MARK: Garbage

    @Test func randomGarbageIsRejectedOrPlausible() {
        var random = SeededRandom(seed: 0x6A2B_A6E0)
        let prefixes: [[UInt8]] = [
            [], [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], Array("GIF87a".utf8), Array("GIF89a".utf8),
            [0xFF, 0xD8], [0xFF, 0xD8, 0xFF], Array("RIFF".utf8),
            Array("RIFF".utf8) + [0xFF, 0xFF, 0xFF, 0x7F] + Array("WEBPVP8 ".utf8),
            Array("RIFF".utf8) + [0xFF, 0xFF, 0xFF, 0x7F] + Array("WEBPVP8L".utf8),
            Array("RIFF".utf8) + [0xFF, 0xFF, 0xFF, 0x7F] + Array("WEBPVP8X".utf8),
        ]
        for _ in 0..<20_000 {
            let prefix = prefixes.randomElement(using: &random)!
            let count = Int.random(in: 0...96, using: &random)
            var bytes = prefix
            for _ in 0..<count {
                // Biased towards FF and 00, the bytes that steer the JPEG walk.
                switch UInt8.random(in: 0...7, using: &random) {
                case 0: bytes.append(0xFF)
                case 1: bytes.append(0x00)
                default: bytes.append(UInt8.random(in: 0...255, using: &random))
                }
            }
            if let size = ImageSize.read(bytes) { expectPlausible(size) }
        }
    }

    @Test func notImages() {
        #expect(ImageSize.read([UInt8]()) == nil)
        #expect(ImageSize.read(UnsafeRawBufferPointer(start: nil, count: 0)) == nil)
        #expect(ImageSize.read(Array(#"{"width": 100, "height": 100}"#.utf8)) == nil)
        #expect(ImageSize.read(Array("<svg width=\"10\" height=\"10\"></svg>".utf8)) == nil)
        #expect(ImageSize.read([UInt8](repeating: 0, count: 1024)) == nil)
        #expect(ImageSize.read([UInt8](repeating: 0xFF, count: 1024)) == nil)
    }

    // MARK: Conveniences

    @Test func dataSlicesAndArraySlices() throws {
        let png = Make.png(width: 12, height: 34)
        let padded = Data([1, 2, 3] + png)
        let slice = padded[3...]
        #expect(slice.startIndex == 3)
        #expect(ImageSize.read(slice) == ImageSize(format: .png, width: 12, height: 34))
        let arraySlice = ([9, 9] + png)[2...]
        #expect(ImageSize.read(arraySlice) == ImageSize(format: .png, width: 12, height: 34))
    }

    @Test func codableRoundTrip() throws {
        let size = ImageSize(format: .webp, width: 1920, height: 1080)
        let data = try JSONEncoder().encode(size)
        #expect(try JSONDecoder().decode(ImageSize.self, from: data) == size)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["format"] as? String == "webp")
    }

    // MARK: Helpers

    private func expectPlausible(_ size: ImageSize, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect((1...ImageSize.maxDimension).contains(size.width), sourceLocation: sourceLocation)
        #expect((1...ImageSize.maxDimension).contains(size.height), sourceLocation: sourceLocation)
    }

    /// Edge and byte-order sizes up to `max`, plus seeded random ones.
    private static func sampleSizes<T: FixedWidthInteger>(max: T) -> [(T, T)] {
        var values: [T] = [1, 2, 255, 256, 257, 0x0102, min(0x3FFF, max), max - 1, max]
        var random = SeededRandom(seed: UInt64(max))
        for _ in 0..<16 { values.append(T.random(in: 1...max, using: &random)) }
        var sizes: [(T, T)] = []
        for (index, width) in values.enumerated() {
            sizes.append((width, values[(index * 7 + 3) % values.count]))
        }
        return sizes
    }
}

/// Minimal headers built field by field from the format specifications: each ends right after the
/// fields `ImageSize` reads (plus a trailer where one is cheap), so truncation thresholds are exact.
private enum Make {
    /// PNG signature and IHDR chunk (8-bit RGB), with its CRC.
    static func png(width: UInt32, height: UInt32) -> [UInt8] {
        let data = be32(width) + be32(height) + [8, 2, 0, 0, 0]
        let type = Array("IHDR".utf8)
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + be32(13) + type + data + be32(crc32(type + data))
    }

    /// GIF header and logical screen descriptor (no colour table), then the trailer.
    static func gif(version: String, width: UInt16, height: UInt16) -> [UInt8] {
        Array("GIF\(version)".utf8) + le16(width) + le16(height) + [0x00, 0x00, 0x00] + [0x3B]
    }

    /// SOI, the `before` segments, then a frame header of type `sof` with 3 components.
    static func jpeg(width: UInt16, height: UInt16, sof: UInt8 = 0xC0, before: [[UInt8]] = []) -> [UInt8] {
        [0xFF, 0xD8] + before.flatMap { $0 } + segment(sof, frameHeader(width: width, height: height))
    }

    /// A marker segment: FF, marker, 2-byte length (counting itself), payload.
    static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        [0xFF, marker] + be16(UInt16(payload.count + 2)) + payload
    }

    /// A frame header's payload: precision 8, lines, samples per line, 3 components (YCbCr 4:2:0).
    static func frameHeader(width: UInt16, height: UInt16) -> [UInt8] {
        [8] + be16(height) + be16(width) + [3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]
    }

    /// RIFF/WEBP with a `VP8 ` chunk holding a key frame header (frame tag, start code, sizes).
    static func webpLossy(width: UInt16, height: UInt16) -> [UInt8] {
        riff(chunk: "VP8 ", [0x30, 0x01, 0x00, 0x9D, 0x01, 0x2A] + le16(width) + le16(height))
    }

    /// RIFF/WEBP with a `VP8L` chunk: signature 2F and the packed width-1 / height-1.
    static func webpLossless(width: UInt32, height: UInt32) -> [UInt8] {
        let bits = (width &- 1) & 0x3FFF | ((height &- 1) & 0x3FFF) << 14
        return riff(chunk: "VP8L", [0x2F] + le32(bits))
    }

    /// RIFF/WEBP with a `VP8X` chunk: flags (alpha), reserved, 24-bit canvas width-1 and height-1.
    static func webpExtended(width: UInt32, height: UInt32) -> [UInt8] {
        riff(chunk: "VP8X", [0x10, 0, 0, 0] + le32(width &- 1).prefix(3) + le32(height &- 1).prefix(3))
    }

    private static func riff(chunk: String, _ payload: [UInt8]) -> [UInt8] {
        let body = Array("WEBP".utf8) + Array(chunk.utf8) + le32(UInt32(payload.count)) + payload
        return Array("RIFF".utf8) + le32(UInt32(body.count)) + body
    }

    static func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
    static func be32(_ value: UInt32) -> [UInt8] { be16(UInt16(value >> 16)) + be16(UInt16(value & 0xFFFF)) }
    static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    static func le32(_ value: UInt32) -> [UInt8] { le16(UInt16(value & 0xFFFF)) + le16(UInt16(value >> 16)) }

    /// CRC-32 as PNG uses it (reflected, polynomial 0xEDB88320), bit by bit.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
