# alibaba_solar: Alibaba storage (Solar2022)
# measured in: R. Miao et al., "From Luna to Solar: The Evolutions of the Compute-to-Storage Networks in Alibaba Cloud", ACM SIGCOMM 2022 (attribution by file name only; the ConWeave repository gives no citation for
# tabulation: https://github.com/conweave-project/conweave-ns3 (branch main, snapshot commit 236a801a00e35de9078635e04acae2f701c21ded) traffic_gen/Solar2022.txt (last changed in commit 74fa3b2ef9f70befed80e757d03b2549eef9777d)
# interpolation: linear
0 0.0
4095 0.00001
4096 0.3
16383 0.35
16384 0.5
65535 0.6
65536 0.95
262144 1.0
